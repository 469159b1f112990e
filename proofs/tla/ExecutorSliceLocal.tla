-------------------------- MODULE ExecutorSliceLocal --------------------------
(* ExecutorSlice with the P's ring never empty (tasks that spawn locally  *)
(* forever): its own module so that schedkit tlc checks it as a second    *)
(* default model beside the ping-pong (a config per spec).               *)
EXTENDS ExecutorSlice
=============================================================================
