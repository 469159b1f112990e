-------------------------- MODULE SpinningKeepAlive --------------------------
(* Spinning with Config.KeepAlive (KeepAlive = TRUE), under a must-pass    *)
(* model of its own (SpinningKeepAlive.cfg): an idle M beyond the Ps may  *)
(* exit (Expire) while a Wakep pops it (spinning's explorer shape         *)
(* keepAliveVsWakep), and NeedM brings an M back for a handoff (NewM).    *)
(* The runner names a model after its module, hence this one.             *)
EXTENDS Spinning
=============================================================================
