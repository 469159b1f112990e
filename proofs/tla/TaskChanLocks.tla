---------------------------- MODULE TaskChanLocks ----------------------------
(* TaskChan with scenario "locks": a select's sellock takes its channel     *)
(* locks one per step, so two selects with their cases in opposite orders *)
(* can meet halfway; its own module so that schedkit tlc checks it as a   *)
(* model of its own (a config per spec).                                   *)
EXTENDS TaskChan
=============================================================================
