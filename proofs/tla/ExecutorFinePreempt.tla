------------------------- MODULE ExecutorFinePreempt -------------------------
(* ExecutorFine with program "preempt": the preempt path (PreemptRequeue, a *)
(* runnext task requeued to the global queue, then wakeIfIdle) beside an    *)
(* idle P, at the Go code's grain. Its own module so that schedkit tlc      *)
(* checks its configs apart from ExecutorFine's (a config per spec).        *)
EXTENDS ExecutorFine
=============================================================================
