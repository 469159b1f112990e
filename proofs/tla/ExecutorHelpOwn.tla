--------------------------- MODULE ExecutorHelpOwn ---------------------------
(* ExecutorHelp with program "own" (a Wait under the cap whose P queue holds *)
(* another group's task ahead of its own child): its own module so that    *)
(* schedkit tlc checks it as a second default model (a config per spec).   *)
EXTENDS ExecutorHelp
=============================================================================
