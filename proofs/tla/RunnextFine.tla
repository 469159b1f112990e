---------------------------- MODULE RunnextFine ----------------------------
(***************************************************************************)
(* Runnext.tla with lfq.Ring.Len at the Go code's grain:                  *)
(* RunnextFine_long.cfg sets FineLen, so every Len inside Empty and        *)
(* StealHalf is three steps (load tail, load head, load tail again; retry  *)
(* if tail moved) instead of one. The same invariants hold, so the         *)
(* one-step Len of Runnext.cfg hides nothing they state.                   *)
(***************************************************************************)
EXTENDS Runnext
=============================================================================
