------------------------------ MODULE RingFine ------------------------------
(***************************************************************************)
(* Ring.tla at the Go code's grain: RingFine.cfg sets Fine = TRUE, so the  *)
(* owner's head load, each slot write of PutBatch, each slot read of an    *)
(* overflow's copy and of Drain is its own step, as in lfq/ring.go. Every *)
(* invariant of Ring.tla must still hold: the coarse steps of Ring.cfg hide *)
(* no interleaving that matters. A module of its own only so that the      *)
(* runner can tell its configs from Ring's.                                *)
(***************************************************************************)
EXTENDS Ring
=============================================================================
