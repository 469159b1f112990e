--------------------------- MODULE ExecutorSyscall ---------------------------
(***************************************************************************)
(* Task.Syscall, the optimistic system-call path (executor/syscall.go),    *)
(* at the grain of the P's status word: one P, the Ms made on demand       *)
(* (NeedM) up to NM, and sysmon's retake of a P in pSyscall.               *)
(*                                                                         *)
(* entersyscall moves the holder's P from pTask to pSyscall (syscalltick   *)
(* counted first); the P stays with the call. sysmon notes a new call      *)
(* (syscalltick moved: seenCall) and, a round later (the call has lasted   *)
(* the threshold), retakes the P by CAS pSyscall -> pIdle if work waits    *)
(* for it (its queue, or any queue with no P idle: waitsFor), or, once the *)
(* call has lasted a Slice, in any case; the retaken P goes to a task back *)
(* from a call that waits for one (handToWaiter), else to HandoffP. The    *)
(* call's return CASes pSyscall -> pTask and keeps the P (exitsyscallfast) *)
(* or, the P retaken, gets one as Blocking does: an idle P, else the       *)
(* task's exitToken at the global queue's tail, Wakep, and a park until an *)
(* M runs the token or a retake hands it a P (exitsyscall0).               *)
(*                                                                         *)
(* Time is abstract: age is how long sysmon has seen the same call, 0 (just *)
(* noted), 1 (the threshold), 2 (a Slice); any later round may find it     *)
(* older. A call's return has no fairness unless a property asks for it.   *)
(*                                                                         *)
(* Program: tasks C1 and C2 are queued from outside; C1 spawns Q into its  *)
(* P's queue (Task.Go), then makes a call; C2 makes a call; each ends      *)
(* after its call. So a call's P is retaken with work in its own queue (Q) *)
(* and with work only in the global queue (C2, or C1's exitToken), and C1, *)
(* back from its retaken call, can wait for the P of C2's call.            *)
(*                                                                         *)
(* An M of another P (not modelled) does the same retake between its     *)
(* tasks (helpRetake: HelpRetake), judging the call's age by the call's    *)
(* own start (callSince) instead of sysmon's notes, so it may act at any   *)
(* moment once the call has lasted its threshold. Time passes at sysmon's  *)
(* rounds (SysAge ages the call too): a clock of its own for the helper    *)
(* (a CallAge step) made 10,954 states against 3,321 and found nothing     *)
(* more (a one-off run, proofs/tla/README.md).                             *)
(*                                                                         *)
(* Scaled and merged: one P, so HandoffP always starts an M (work waits,   *)
(* or no P is idle and no M spins: handoffp's spinning start), and wakeIfIdle *)
(* never finds a P idle beside its caller. Spinning is abstracted: Wakep   *)
(* starts an M on an idle P (Spinning.tla and ExecutorFine.tla check the   *)
(* spinning protocol). A spawn is one step (ExecutorSlice.tla checks its   *)
(* CAS to pSpawn). findRunnable looks at the P's queue (runnext and ring   *)
(* as one sequence), then takes one task from the global queue.            *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NM,       \* the most Ms that may be made; they are 1..NM
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   SyscallNeverRetaken       sysmon skips a P in pSyscall (the Go mutation)
\*   SyscallExitIgnoresRetake  the call's return stores pTask instead of its
\*                             CAS from pSyscall (the Go mutation)
\*   SyscallRetakeWhenNothingWaits  sysmon retakes a call past its threshold
\*                             whether or not work waits (the runtime's rule,
\*                             which the Go code drops: a call alone makes
\*                             no M)
\*   NoHandToWaiter            a retaken call's P always goes to HandoffP,
\*                             never to a task back from a call that waits
\*                             (the Go code before handToWaiter)
\*   ExitTokenNoWake           exitsyscall0 queues the exitToken without
\*                             Wakep
\*   HandToWaiterNoWake        handToWaiter gives the waiter the P and does
\*                             not wake its note
\*   SyscallAgeFromEarlierCall a new call is noted (seenCall) with the
\*                             earlier call's time kept (seenCallWhen): its
\*                             age is the earlier call's
\*   HelpRetakeEarly           an M's retake between its tasks (helpRetake)
\*                             does not wait for the call's threshold (the
\*                             Go mutation)
Mutants == {"none", "SyscallNeverRetaken", "SyscallExitIgnoresRetake",
            "SyscallRetakeWhenNothingWaits", "NoHandToWaiter",
            "ExitTokenNoWake", "HandToWaiterNoWake", "SyscallAgeFromEarlierCall",
            "HelpRetakeEarly"}

ASSUME /\ NM \in Nat /\ NM >= 2 /\ NM <= 4
       /\ Mutant \in Mutants

Procs == 1
Ms == 1..NM
Tasks == {"C1", "C2", "Q"}
TokOf == <<"k1", "k2", "k3", "k4">>
Tok(m) == TokOf[m]                 \* M m's exitToken
Toks == {Tok(m) : m \in Ms}
TokM(x) == CHOOSE m \in Ms : Tok(m) = x
Body(t) == CASE t = "C1" -> <<"spawn", "call", "end">>
             [] t = "C2" -> <<"call", "end">>
             [] t = "Q"  -> <<"end">>
NoT == "none"

VARIABLES
    glob,     \* the global queue: tasks and exitTokens
    lq,       \* the P's queue (runnext and ring)
    st,       \* the P's status word: [s |-> state, m |-> holder (0: none)]
    pidle,    \* the P is on the Sched's idle list
    pend,     \* the P waits in a handoff for an M (only with NM Ms made)
    made,     \* Ms made: 1..made exist
    pc,       \* pc[m]: where M m is
    wp,       \* wp[m]: M m's w.p names the P (stale while its call's P is retaken)
    cur,      \* cur[m]: the task M m runs
    note,     \* note[m]: M m's note is woken
    xw,       \* xw[m]: M m's exitWait
    tpc,      \* tpc[t]: the steps of Body(t) done
    ctick,    \* the P's syscalltick
    seen,     \* sysmon's seenCall
    age,      \* how long sysmon has seen the call seen (0, 1 threshold, 2 Slice)
    cage,     \* how long the current call itself has lasted (capped at 2): sysmon's
              \* history of it, and what helpRetake reads (callSince)
    spc,      \* sysmon: "idle", "cas" (decided to retake), "hand" (took the P)
    sw,       \* the holder in the status word sysmon loaded
    started,  \* tasks that have started
    done,     \* tasks that have ended
    maxBlk,   \* the most calls blocked at once so far (Blocked)
    idleRetake, \* history: a retake decided before a Slice with nothing waiting
    hearly    \* history: helpRetake took a call's P before the call's threshold

vars == <<glob, lq, st, pidle, pend, made, pc, wp, cur, note, xw, tpc, ctick,
          seen, age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

\* An M's places: "none" not made; "park" on the idle M list; "find"
\* findRunnable (the P in pSched); "run" its task's body (pTask); "incall"
\* in the call's f; "x0acq", "x0w", "x0put", "x0wake", "x0park"
\* exitsyscall0 (AcquireP, exitWait = 1, the token's put, Wakep, the park
\* on its note); "exitp" exitP after it handed its P to a waiting task.
MPCs == {"none", "park", "find", "run", "incall", "x0acq", "x0w", "x0put",
         "x0wake", "x0park", "exitp"}

Own(m, s) == [s |-> s, m |-> m]
Idle == Own(0, "idle")

Init ==
    /\ glob = <<"C1", "C2">> /\ lq = <<>>
    /\ st = Own(1, "sched") /\ pidle = FALSE /\ pend = FALSE
    /\ made = 1
    /\ pc = [m \in Ms |-> IF m = 1 THEN "find" ELSE "none"]
    /\ wp = [m \in Ms |-> m = 1]
    /\ cur = [m \in Ms |-> NoT]
    /\ note = [m \in Ms |-> FALSE] /\ xw = [m \in Ms |-> FALSE]
    /\ tpc = [t \in Tasks |-> 0]
    /\ ctick = 0 /\ seen = 0 /\ age = 0 /\ cage = 0 /\ spc = "idle" /\ sw = 0
    /\ started = {} /\ done = {} /\ maxBlk = 0 /\ idleRetake = FALSE
    /\ hearly = FALSE

\* The calls blocked: in f, or back from f and not yet offered to a retake
\* (handToWaiter sees a waiter only once its exitWait is 1).
Blocked == {m \in Ms : pc[m] \in {"incall", "x0acq", "x0w"}}
IdleMs == {m \in 1..made : pc[m] = "park"}
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y

(***************************************************************************)
(* startm for the P (taken off the idle list, or handed off): the idle M   *)
(* that parked first gets it, else NeedM makes one (newm), else the       *)
(* handoff waits for the next M that stops. pc0 and wp0 are the M places  *)
(* after the caller's own change.                                          *)
(***************************************************************************)
StartM(pc0, wp0) ==
    IF IdleMs # {}
      THEN LET n == MinOf(IdleMs)
           IN /\ st' = Own(n, "sched") /\ pc' = [pc0 EXCEPT ![n] = "find"]
              /\ wp' = [wp0 EXCEPT ![n] = TRUE] /\ UNCHANGED <<made, pend>>
      ELSE IF made < NM
        THEN /\ made' = made + 1 /\ st' = Own(made + 1, "sched")
             /\ pc' = [pc0 EXCEPT ![made + 1] = "find"]
             /\ wp' = [wp0 EXCEPT ![made + 1] = TRUE] /\ UNCHANGED pend
        ELSE /\ pend' = TRUE /\ st' = Idle /\ pc' = pc0 /\ wp' = wp0
             /\ UNCHANGED made

\* spinning.Sched.Wakep, with spinning abstracted: an idle P gets an M.
Wakep(pc0, wp0) ==
    IF pidle THEN pidle' = FALSE /\ StartM(pc0, wp0)
    ELSE /\ pc' = pc0 /\ wp' = wp0 /\ UNCHANGED <<pidle, st, pend, made>>

\* stopm for M m (its own change pc0, wp0 made): a waiting handoff, else
\* park on the idle list.
StopM(m, pc0, wp0) ==
    IF pend
      THEN /\ pend' = FALSE /\ st' = Own(m, "sched")
           /\ pc' = [pc0 EXCEPT ![m] = "find"] /\ wp' = [wp0 EXCEPT ![m] = TRUE]
      ELSE /\ pc' = [pc0 EXCEPT ![m] = "park"] /\ wp' = wp0 /\ UNCHANGED <<pend, st>>

(***************************************************************************)
(* findRunnable on M m, which holds the P in pSched: the P's queue, then   *)
(* one item of the global queue, else releasep, pidleput and stopm. A      *)
(* task starts (execute: pTask). An exitToken whose exitWait the M CASes   *)
(* 1 -> 0 hands the P to its waiting M (resume: the P in the waiter's      *)
(* name, its note woken) and the M goes to exitP; a token whose waiter a   *)
(* retake served already is dropped.                                       *)
(***************************************************************************)
Take(m, x) ==
    IF x \in Tasks
      THEN /\ st' = Own(m, "task") /\ pc' = [pc EXCEPT ![m] = "run"]
           /\ cur' = [cur EXCEPT ![m] = x] /\ started' = started \cup {x}
           /\ UNCHANGED <<wp, note, xw>>
      ELSE LET v == TokM(x) IN
           IF xw[v]
             THEN /\ xw' = [xw EXCEPT ![v] = FALSE]
                  /\ st' = Own(v, "sched")
                  /\ wp' = [wp EXCEPT ![v] = TRUE, ![m] = FALSE]
                  /\ note' = [note EXCEPT ![v] = TRUE]
                  /\ pc' = [pc EXCEPT ![m] = "exitp"]
                  /\ UNCHANGED <<cur, started>>
             ELSE UNCHANGED <<st, pc, wp, note, xw, cur, started>>

FindRunnable(m) ==
    /\ pc[m] = "find"
    /\ IF lq # <<>>
         THEN /\ lq' = Tail(lq) /\ Take(m, Head(lq))
              /\ UNCHANGED <<glob, pidle, pend, made>>
       ELSE IF glob # <<>>
         THEN /\ glob' = Tail(glob) /\ Take(m, Head(glob))
              /\ UNCHANGED <<lq, pidle, pend, made>>
       ELSE /\ st' = Idle /\ pidle' = TRUE
            /\ pc' = [pc EXCEPT ![m] = "park"] /\ wp' = [wp EXCEPT ![m] = FALSE]
            /\ UNCHANGED <<glob, lq, pend, made, cur, note, xw, started>>
    /\ UNCHANGED <<tpc, ctick, seen, age, cage, spc, sw, done, maxBlk, idleRetake, hearly>>

(***************************************************************************)
(* The task's body on M m. "spawn": Task.Go into the P's queue (the holder *)
(* in pTask). "call": entersyscall, syscalltick counted, then the CAS      *)
(* pTask -> pSyscall (only the holder moves pTask here, so it succeeds).   *)
(* "end": the task returns; claim moves the P back to pSched.              *)
(***************************************************************************)
Op(m) == Body(cur[m])[tpc[cur[m]] + 1]
Step(m) == tpc' = [tpc EXCEPT ![cur[m]] = @ + 1]

Spawn(m) ==
    /\ pc[m] = "run" /\ Op(m) = "spawn" /\ st = Own(m, "task")
    /\ lq' = Append(lq, "Q") /\ Step(m)
    /\ UNCHANGED <<glob, st, pidle, pend, made, pc, wp, cur, note, xw, ctick,
                   seen, age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

Enter(m) ==
    /\ pc[m] = "run" /\ Op(m) = "call" /\ st = Own(m, "task")
    /\ ctick' = ctick + 1 /\ st' = Own(m, "syscall")
    /\ pc' = [pc EXCEPT ![m] = "incall"] /\ Step(m)
    /\ maxBlk' = IF Cardinality(Blocked) + 1 > maxBlk THEN Cardinality(Blocked) + 1 ELSE maxBlk
    /\ cage' = 0
    /\ UNCHANGED <<glob, lq, pidle, pend, made, wp, cur, note, xw, seen, age,
                   spc, sw, started, done, idleRetake, hearly>>

End(m) ==
    /\ pc[m] = "run" /\ Op(m) = "end" /\ st = Own(m, "task")
    /\ st' = Own(m, "sched") /\ pc' = [pc EXCEPT ![m] = "find"]
    /\ done' = done \cup {cur[m]} /\ cur' = [cur EXCEPT ![m] = NoT] /\ Step(m)
    /\ UNCHANGED <<glob, lq, pidle, pend, made, wp, note, xw, ctick, seen, age, cage,
                   spc, sw, started, maxBlk, idleRetake, hearly>>

(***************************************************************************)
(* The call returns (exitsyscall): the CAS pSyscall -> pTask keeps the P;  *)
(* failed, the P was retaken: w.p = nil and exitsyscall0. The mutant       *)
(* stores pTask whoever holds the P now.                                   *)
(***************************************************************************)
Ret(m) ==
    /\ pc[m] = "incall"
    /\ IF Mutant = "SyscallExitIgnoresRetake"
         THEN /\ st' = Own(m, "task") /\ pc' = [pc EXCEPT ![m] = "run"]
              /\ UNCHANGED wp
       ELSE IF st = Own(m, "syscall")
         THEN /\ st' = Own(m, "task") /\ pc' = [pc EXCEPT ![m] = "run"]
              /\ UNCHANGED wp
         ELSE /\ pc' = [pc EXCEPT ![m] = "x0acq"] /\ wp' = [wp EXCEPT ![m] = FALSE]
              /\ UNCHANGED st
    /\ UNCHANGED <<glob, lq, pidle, pend, made, cur, note, xw, tpc, ctick, seen,
                   age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

\* exitsyscall0: AcquireP (an idle P: takeP and startSlice, pTask), else
\* exitWait = 1, the exitToken at the global queue's tail, Wakep, and the
\* park on the note, which returns with the P a resume or a retake gave.
X0Acq(m) ==
    /\ pc[m] = "x0acq"
    /\ IF pidle
         THEN /\ pidle' = FALSE /\ st' = Own(m, "task")
              /\ pc' = [pc EXCEPT ![m] = "run"] /\ wp' = [wp EXCEPT ![m] = TRUE]
         ELSE /\ pc' = [pc EXCEPT ![m] = "x0w"] /\ UNCHANGED <<pidle, st, wp>>
    /\ UNCHANGED <<glob, lq, pend, made, cur, note, xw, tpc, ctick, seen, age, cage,
                   spc, sw, started, done, maxBlk, idleRetake, hearly>>

X0W(m) ==
    /\ pc[m] = "x0w"
    /\ xw' = [xw EXCEPT ![m] = TRUE] /\ pc' = [pc EXCEPT ![m] = "x0put"]
    /\ UNCHANGED <<glob, lq, st, pidle, pend, made, wp, cur, note, tpc, ctick,
                   seen, age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

X0Put(m) ==
    /\ pc[m] = "x0put"
    /\ glob' = Append(glob, Tok(m)) /\ pc' = [pc EXCEPT ![m] = "x0wake"]
    /\ UNCHANGED <<lq, st, pidle, pend, made, wp, cur, note, xw, tpc, ctick,
                   seen, age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

X0Wake(m) ==
    /\ pc[m] = "x0wake"
    /\ IF Mutant = "ExitTokenNoWake"
         THEN /\ pc' = [pc EXCEPT ![m] = "x0park"] /\ UNCHANGED <<pidle, st, pend, made, wp>>
         ELSE Wakep([pc EXCEPT ![m] = "x0park"], wp)
    /\ UNCHANGED <<glob, lq, cur, note, xw, tpc, ctick, seen, age, cage, spc, sw,
                   started, done, maxBlk, idleRetake, hearly>>

X0Park(m) ==
    /\ pc[m] = "x0park" /\ note[m]
    /\ note' = [note EXCEPT ![m] = FALSE]
    /\ st' = Own(m, "task") /\ pc' = [pc EXCEPT ![m] = "run"]
    /\ UNCHANGED <<glob, lq, pidle, pend, made, wp, cur, xw, tpc, ctick, seen,
                   age, cage, spc, sw, started, done, maxBlk, idleRetake, hearly>>

\* exitP after a resume: an idle P, a waiting handoff, else park.
ExitP(m) ==
    /\ pc[m] = "exitp"
    /\ IF pidle
         THEN /\ pidle' = FALSE /\ st' = Own(m, "sched")
              /\ pc' = [pc EXCEPT ![m] = "find"] /\ wp' = [wp EXCEPT ![m] = TRUE]
              /\ UNCHANGED pend
         ELSE StopM(m, pc, wp) /\ UNCHANGED pidle
    /\ UNCHANGED <<glob, lq, made, cur, note, xw, tpc, ctick, seen, age, cage, spc,
                   sw, started, done, maxBlk, idleRetake, hearly>>

(***************************************************************************)
(* sysmon's look at a P in pSyscall (retakeSyscall, retake).               *)
(***************************************************************************)
\* waitsFor: work in the P's queue, or anywhere with no P idle.
WaitsFor == lq # <<>> \/ (~pidle /\ glob # <<>>)

\* A new call (syscalltick moved): noted (seenCall, seenCallWhen), not yet
\* retaken. SyscallAgeFromEarlierCall notes the tick and keeps the earlier
\* call's time: the new call starts as old as the earlier one was.
SysNote ==
    /\ spc = "idle" /\ st.s = "syscall" /\ ctick # seen
    /\ seen' = ctick /\ age' = IF Mutant = "SyscallAgeFromEarlierCall" THEN age ELSE 0
    /\ UNCHANGED <<cage, glob, lq, st, pidle, pend, made, pc, wp, cur, note, xw, tpc,
                   ctick, spc, sw, started, done, maxBlk, idleRetake, hearly>>

\* Time passes: a later round finds the same call older.
SysAge ==
    /\ spc = "idle" /\ st.s = "syscall" /\ ctick = seen /\ age < 2
    /\ age' = age + 1 /\ cage' = IF cage < 2 THEN cage + 1 ELSE 2
    /\ UNCHANGED <<glob, lq, st, pidle, pend, made, pc, wp, cur, note, xw, tpc,
                   ctick, seen, spc, sw, started, done, maxBlk, idleRetake, hearly>>

\* The loads: the call has lasted the threshold while work waits, or a
\* Slice; the holder and the tick unchanged: go on to retake's CAS.
SysLook ==
    /\ spc = "idle" /\ st.s = "syscall" /\ ctick = seen /\ age >= 1
    /\ Mutant # "SyscallNeverRetaken"
    /\ WaitsFor \/ age = 2 \/ Mutant = "SyscallRetakeWhenNothingWaits"
    /\ spc' = "cas" /\ sw' = st.m
    /\ idleRetake' = (idleRetake \/ (age < 2 /\ ~WaitsFor))
    /\ UNCHANGED <<glob, lq, st, pidle, pend, made, pc, wp, cur, note, xw, tpc,
                   ctick, seen, age, cage, started, done, maxBlk, hearly>>

\* retake: the CAS of the word it loaded to pIdle (a new call since in the
\* same M's name passes it too: the CAS cannot tell).
SysCAS ==
    /\ spc = "cas"
    /\ IF st = Own(sw, "syscall")
         THEN st' = Idle /\ spc' = "hand"
         ELSE spc' = "idle" /\ UNCHANGED st
    /\ UNCHANGED <<glob, lq, pidle, pend, made, pc, wp, cur, note, xw, tpc,
                   ctick, seen, age, cage, sw, started, done, maxBlk, idleRetake, hearly>>

\* handToWaiter: a task back from a call waits for a P (exitWait 1 -> 0
\* under e.mu): the P in its name, its note woken. Else HandoffP: with one
\* P it always starts an M (work waits, or no P is idle and no M spins).
SysHand ==
    /\ spc = "hand"
    /\ LET ws == {v \in 1..made : xw[v]} IN
       IF ws # {} /\ Mutant # "NoHandToWaiter"
         THEN LET v == MinOf(ws) IN
              /\ xw' = [xw EXCEPT ![v] = FALSE]
              /\ st' = Own(v, "sched") /\ wp' = [wp EXCEPT ![v] = TRUE]
              /\ note' = IF Mutant = "HandToWaiterNoWake" THEN note
                         ELSE [note EXCEPT ![v] = TRUE]
              /\ UNCHANGED <<pc, pend, made>>
         ELSE /\ StartM(pc, wp) /\ UNCHANGED <<xw, note>>
    /\ spc' = "idle"
    /\ UNCHANGED <<glob, lq, pidle, cur, tpc, ctick, seen, age, cage, sw, started,
                   done, maxBlk, idleRetake, hearly>>

Sysmon == SysNote \/ SysAge \/ SysLook \/ SysCAS \/ SysHand

(***************************************************************************)
(* helpRetake: an M of another P, between its tasks, does sysmon's retake  *)
(* of the call's P itself, judging the call's own age (callSince, stored   *)
(* before the word says pSyscall): cage, not sysmon's age.                 *)
(***************************************************************************)
\* helpRetake's loads (the call has lasted its threshold while work waits,
\* or a Slice), retake's CAS and its handoff (retakeServes: handToWaiter,
\* else HandoffP, as SysHand), as one step: the windows between them are
\* sysmon's too (SysLook, SysCAS, SysHand run the same retake), checked
\* there; here the helper's retake races sysmon's and the call's return.
HelpRetake ==
    /\ st.s = "syscall"
    /\ cage >= 1 \/ Mutant = "HelpRetakeEarly"
    /\ WaitsFor \/ cage = 2
    /\ idleRetake' = (idleRetake \/ (cage < 2 /\ ~WaitsFor))
    /\ hearly' = (hearly \/ cage < 1)
    /\ LET ws == {v \in 1..made : xw[v]} IN
       IF ws # {} /\ Mutant # "NoHandToWaiter"
         THEN LET v == MinOf(ws) IN
              /\ xw' = [xw EXCEPT ![v] = FALSE]
              /\ st' = Own(v, "sched") /\ wp' = [wp EXCEPT ![v] = TRUE]
              /\ note' = IF Mutant = "HandToWaiterNoWake" THEN note
                         ELSE [note EXCEPT ![v] = TRUE]
              /\ UNCHANGED <<pc, pend, made>>
         ELSE /\ StartM(pc, wp) /\ UNCHANGED <<xw, note>>
    /\ UNCHANGED <<glob, lq, pidle, cur, tpc, ctick, seen, age, cage, spc, sw, started,
                   done, maxBlk>>

Helper == HelpRetake

MStep(m) ==
    \/ FindRunnable(m) \/ Spawn(m) \/ Enter(m) \/ End(m)
    \/ X0Acq(m) \/ X0W(m) \/ X0Put(m) \/ X0Wake(m) \/ X0Park(m) \/ ExitP(m)

Next == Sysmon \/ Helper \/ \E m \in Ms : MStep(m) \/ Ret(m)

\* Every M step and sysmon weakly fair; a call's return is not (a call may
\* block forever): CallsReturn asks for it. Nor is the helping M (no M may
\* run beside the call: every other P idle or in a call).
Spec ==
    /\ Init /\ [][Next]_vars
    /\ \A m \in Ms : WF_vars(MStep(m))
    /\ WF_vars(Sysmon)

CallsReturn == \A m \in Ms : WF_vars(Ret(m))

---------------------------------------------------------------------------
TypeOK ==
    /\ glob \in Seq(Tasks \cup Toks) /\ lq \in Seq(Tasks)
    /\ st \in [s : {"idle", "sched", "task", "syscall"}, m : 0..NM]
    /\ pidle \in BOOLEAN /\ pend \in BOOLEAN /\ made \in 1..NM
    /\ pc \in [Ms -> MPCs] /\ wp \in [Ms -> BOOLEAN]
    /\ cur \in [Ms -> Tasks \cup {NoT}]
    /\ note \in [Ms -> BOOLEAN] /\ xw \in [Ms -> BOOLEAN]
    /\ tpc \in [Tasks -> 0..3] /\ ctick \in 0..2 /\ seen \in 0..2 /\ age \in 0..2
    /\ cage \in 0..2
    /\ spc \in {"idle", "cas", "hand"} /\ sw \in 0..NM
    /\ started \subseteq Tasks /\ done \subseteq Tasks /\ maxBlk \in 0..NM
    /\ idleRetake \in BOOLEAN /\ hearly \in BOOLEAN

\* Exactly one owner of the P at any time: an M that uses it (findRunnable
\* in pSched, or its task in pTask: st names it), the call (pSyscall), the
\* idle list, a handoff that waits, sysmon between its CAS and the handoff,
\* or a task back from a call that a resume or a retake gave it, not yet
\* running. An M in the call whose P was retaken holds a stale w.p and
\* does not use it.
Uses(m) == wp[m] /\ pc[m] \in {"find", "run"}
Given(m) == wp[m] /\ pc[m] \in {"x0w", "x0put", "x0wake", "x0park", "exitp"}
Owners ==
    Cardinality({m \in Ms : Uses(m) \/ Given(m)})
    + (IF st.s = "syscall" THEN 1 ELSE 0)
    + (IF pidle THEN 1 ELSE 0) + (IF pend THEN 1 ELSE 0)
    + (IF spc = "hand" THEN 1 ELSE 0)
OneOwner ==
    /\ Owners = 1
    /\ \A m \in Ms : Uses(m) \/ Given(m) => st.m = m
    /\ \A m \in Ms : pc[m] = "find" => st = Own(m, "sched")

\* No lost wakeup with a call in it: while work is queued and the P idles,
\* an M is about to take a P (back from a retaken call: AcquireP; exitP)
\* or to Wakep after queuing its exitToken.
NoLostWakeup ==
    (glob # <<>> \/ lq # <<>>) /\ pidle =>
        \E m \in Ms : pc[m] \in {"x0acq", "x0wake", "exitp"}

\* sysmon retakes a P in pSyscall before a Slice only while work waits for
\* it: a call alone makes no handoff and no M.
RetakeOnlyWhileWorkWaits == ~idleRetake

\* RetakeAtOwnAge: sysmon decides to retake a call's P (its loads pass, on
\* to retake's CAS) only once that call itself has lasted the threshold:
\* the age it acts on is the call's own, counted from the round that noted
\* its syscalltick, never an earlier call's. It mirrors retakeSyscall
\* (executor/syscall.go: a new syscalltick resets seenCall and
\* seenCallWhen, and the threshold is measured from seenCallWhen). (Go's
\* retakeSyscall also retakes a just-noted call when the task's slice
\* overran before the call, the overrun argument; this spec has no slice.)
\* helpRetake, likewise, only once the call has lasted the threshold by its
\* own start (callSince): hearly says it took a P earlier.
RetakeAtOwnAge == [][(spc = "idle" /\ spc' = "cas" => cage >= 1) /\ ~hearly']_vars

\* Ms made: at most Procs plus the most calls blocked at once (a task back
\* from a retaken call pins its M, and the next retake of a call's P goes
\* to it instead of to a new M).
MsBound == made <= Procs + maxBlk

\* Liveness. Every task starts even if no call returns: a retaken
\* pSyscall P's queue (Q) and the global queue (C2) are served.
QueuedRunsWhileCallsBlock == <>(started = Tasks)
\* If calls return, every call returns to a task that goes on: each task
\* ends.
CallsReturnToTasks == CallsReturn => <>(done = Tasks)
=============================================================================
