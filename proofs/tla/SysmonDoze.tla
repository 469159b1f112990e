---------------------------- MODULE SysmonDoze ----------------------------
(* sysmon's doze at a call's pace against Ms entering Task.Syscall       *)
(* (executor/sysmon.go). Each M runs a task on its P and then enters a   *)
(* call that blocks for good: the CAS of its status word to pSyscall     *)
(* (Enter), then its look at sysmonDozing (Look: wakeSysmonForCall),     *)
(* which wakes a doze at pace once no M runs. sysmon's round reads the   *)
(* status words (Round); with a call and no M running it watches the     *)
(* calls on the CPU (Watch: spinForCall, the end of the story here);     *)
(* otherwise it publishes a doze (Publish), looks at the Ps again after  *)
(* a round that saw an M running (Recheck) and sleeps. Its Go timer      *)
(* fires only while some M runs (an M's scheduling point or its kick);  *)
(* with every M in a call it is netpoll's millisecond, modelled as never.*)
(* Work waits for the calls' Ps throughout (the code wakes and looks     *)
(* again only then: waitsFor). CallsWatched asks that once every M is in *)
(* its call, sysmon comes to watch them.                                 *)
EXTENDS Naturals

CONSTANTS NM, Mutant   \* Mutant: "none", "CallEntryNoWake", "DozeNoRecheck"

Ms == 1..NM
VARIABLES st, mpc, spc, running, calls, dozing, woken

vars == <<st, mpc, spc, running, calls, dozing, woken>>

AnyRunning == \E m \in Ms : st[m] = "run"
AnyCall == \E m \in Ms : st[m] = "call"

Init == /\ st = [m \in Ms |-> "run"] /\ mpc = [m \in Ms |-> "idle"]
        /\ spc = "round" /\ running = TRUE /\ calls = FALSE
        /\ dozing = FALSE /\ woken = FALSE

\* entersyscall's CAS to pSyscall.
Enter(m) == /\ st[m] = "run" /\ mpc[m] = "idle"
            /\ st' = [st EXCEPT ![m] = "call"] /\ mpc' = [mpc EXCEPT ![m] = "look"]
            /\ UNCHANGED <<spc, running, calls, dozing, woken>>

\* wakeSysmonForCall: a doze at pace is woken (its CAS, then the note)
\* only if no M runs now.
Look(m) == /\ mpc[m] = "look" /\ mpc' = [mpc EXCEPT ![m] = "done"]
           /\ IF dozing /\ ~AnyRunning /\ Mutant # "CallEntryNoWake"
                 THEN dozing' = FALSE /\ woken' = TRUE
                 ELSE UNCHANGED <<dozing, woken>>
           /\ UNCHANGED <<st, spc, running, calls>>

\* retakeAll's look at the status words.
Round == /\ spc = "round" /\ running' = AnyRunning /\ calls' = AnyCall /\ spc' = "decide"
         /\ UNCHANGED <<st, mpc, dozing, woken>>

\* A call and no M running at the round: spinForCall (watching).
Watch == /\ spc = "decide" /\ calls /\ ~running /\ spc' = "watch"
         /\ UNCHANGED <<st, mpc, running, calls, dozing, woken>>

\* Otherwise a doze at pace: sysmonDozing stored.
Publish == /\ spc = "decide" /\ ~(calls /\ ~running) /\ dozing' = TRUE /\ spc' = "recheck"
           /\ UNCHANGED <<st, mpc, running, calls, woken>>

\* sysmonDoze's look again, after a round that saw an M running (the
\* default case's doze has recheck too: no call was seen there): a call
\* with no M running cancels the doze by CAS, if no M won it first.
Recheck == /\ spc = "recheck"
           /\ IF Mutant # "DozeNoRecheck" /\ running /\ AnyCall /\ ~AnyRunning /\ dozing
                 THEN dozing' = FALSE /\ spc' = "round"
                 ELSE spc' = "sleep" /\ UNCHANGED dozing
           /\ UNCHANGED <<st, mpc, running, calls, woken>>

\* The doze ends at a wakeup, or at the Go timer while some M runs; sysmon
\* then clears the flag (its CAS) and goes to its next round.
Wake == /\ spc = "sleep" /\ (woken \/ AnyRunning)
        /\ spc' = "round" /\ dozing' = FALSE /\ woken' = FALSE
        /\ UNCHANGED <<st, mpc, running, calls>>

Next == \/ \E m \in Ms : Enter(m) \/ Look(m)
        \/ Round \/ Watch \/ Publish \/ Recheck \/ Wake

Spec == Init /\ [][Next]_vars
Fairness == /\ \A m \in Ms : WF_vars(Enter(m)) /\ WF_vars(Look(m))
            /\ WF_vars(Round) /\ WF_vars(Watch) /\ WF_vars(Publish) /\ WF_vars(Recheck) /\ WF_vars(Wake)
FairSpec == Spec /\ Fairness

TypeOK == /\ st \in [Ms -> {"run", "call"}] /\ mpc \in [Ms -> {"idle", "look", "done"}]
          /\ spc \in {"round", "decide", "watch", "recheck", "sleep"}
          /\ running \in BOOLEAN /\ calls \in BOOLEAN /\ dozing \in BOOLEAN /\ woken \in BOOLEAN
\* sysmon watches only calls: it never spins while an M it saw runs.
WatchOnlyUnwatched == spc = "watch" => calls /\ ~running
\* Liveness: once every M is in its call, sysmon comes to watch them.
CallsWatched == (\A m \in Ms : st[m] = "call") ~> (spc = "watch")
=============================================================================
