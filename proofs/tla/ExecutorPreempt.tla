--------------------------- MODULE ExecutorPreempt ---------------------------
(* Executor with program "preempt": the preempt path (PreemptRequeue, a     *)
(* runnext item requeued to the global queue) beside an idle P. Its own     *)
(* module so that schedkit tlc checks it as a default model of its own (a   *)
(* config per spec).                                                        *)
EXTENDS Executor
=============================================================================
