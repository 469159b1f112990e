------------------------- MODULE ExecutorCloseDeadline -------------------------
(***************************************************************************)
(* ExecutorClose.tla under its own name, so that Shutdown's deadline       *)
(* (Deadline = TRUE) has a default config of its own beside Close's.       *)
(***************************************************************************)
EXTENDS ExecutorClose
=============================================================================
