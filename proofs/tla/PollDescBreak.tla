---------------------------- MODULE PollDescBreak ----------------------------
(* PollDesc with part "break" alone: the Breaker's poller and wakers share *)
(* no variable with the descriptor's threads, so the two parts are checked *)
(* apart (their product is about 90 times the descriptor's states for     *)
(* nothing more); its own module so that schedkit tlc checks it as a     *)
(* model of its own (a config per spec).                                  *)
EXTENDS PollDesc
=============================================================================
