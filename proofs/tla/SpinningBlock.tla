---------------------------- MODULE SpinningBlock ----------------------------
(* Spinning, unchanged, under a second must-pass model (SpinningBlock.cfg): *)
(* the runner names a model after its module, so a second shape of the     *)
(* same spec needs a module of its own.                                    *)
EXTENDS Spinning
=============================================================================
