-------------------------- MODULE ExecutorBlocking --------------------------
(***************************************************************************)
(* Task.Blocking, Task.Yield and runtime.Goexit in a task (executor/       *)
(* task.go, executor.go, sched.go, group.go), which Executor.tla leaves    *)
(* out: one P, the Ms made on demand (NeedM) up to NM, and the goroutines  *)
(* of each M as a stack of frames.                                         *)
(*                                                                         *)
(* Blocking (entersyscallblock, exitsyscall): giveUpP hands the P off      *)
(* before the call (HandoffP: startm); after it, reacquire takes an idle P *)
(* (AcquireP) or queues the task's resume token at the global queue's     *)
(* tail, Wakep, and parks until an M runs the token (waitP, resume).      *)
(* Yield (Gosched): with work queued, giveUpP, then waitP: the token at    *)
(* the global queue's tail, so the M looks for other work first.           *)
(* Goexit (goexit1, goexit0): the calling goroutine unwinds, each task     *)
(* frame on it ending as by a panic (run's deferred call: the group's     *)
(* finish); a task a Wait runs inline runs on a helper goroutine of the M  *)
(* (helpWait's coroutine), so its Goexit unwinds that helper's frames      *)
(* only, and the Wait goes on with a new helper; on the M's own goroutine *)
(* it unwinds the whole stack and the M goes on, on a new goroutine,      *)
(* holding its P (mexit, mstart(held)).                                    *)
(*                                                                         *)
(* Program: B, Y, W, G and Q are queued from outside, in that order. B     *)
(* calls Blocking (the call may never return), then ends. Y yields         *)
(* forever. W makes a group, spawns its child K into the P's queue and     *)
(* Waits; K calls Goexit. G calls Goexit on the M's own goroutine. Q ends. *)
(*                                                                         *)
(* Scaled and merged: one P, so HandoffP always starts an M (work waits,   *)
(* or no P is idle and no M spins) and only the holder reaches the P's     *)
(* queue; no sysmon (a task's slice and its retake are ExecutorSlice.tla's; *)
(* a call's are ExecutorSyscall.tla's), so the status word's CASes that   *)
(* only a retake can fail (giveUpP's claim, run's claim) always succeed,  *)
(* and the holder alone is kept. Spinning is abstracted: Wakep starts an   *)
(* M on an idle P. Yield's look at the queues and giveUpP are one step    *)
(* (the holder alone could take the work it saw). A Wait's help of other  *)
(* queued tasks (helpOnce) is Executor.tla's; here a Wait runs its own     *)
(* child from the P's queue (helpOwn) or gives its P up and parks.         *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NM,       \* the most Ms that may be made; they are 1..NM
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   BlockingKeepsNoP     Blocking returns without reacquire: the task goes
\*                        on with no P (the Go mutation)
\*   BlockingHoldsP       Blocking runs its call holding the P (no giveUpP)
\*   GiveUpIdlesP         giveUpP puts the P on the idle list (pidleput)
\*                        instead of HandoffP's look for work
\*   YieldAtHead          Yield queues its token at the global queue's head
\*                        (globrunqputhead), not its tail
\*   GoexitUnwindsWaiter  a Wait runs its child inline on the waiting
\*                        task's goroutine (the Go mutation)
\*   GoexitSkipsFinish    a task's Goexit skips run's deferred finish: its
\*                        group's count is never decremented
\*   GoexitEndsM          mexit ends the M when its goroutine ends in a
\*                        Goexit, with the P it holds
Mutants == {"none", "BlockingKeepsNoP", "BlockingHoldsP", "GiveUpIdlesP",
            "YieldAtHead", "GoexitUnwindsWaiter", "GoexitSkipsFinish",
            "GoexitEndsM"}

ASSUME /\ NM \in Nat /\ NM >= 2 /\ NM <= 4
       /\ Mutant \in Mutants

Procs == 1
Ms == 1..NM
Tasks == {"B", "Y", "W", "K", "G", "Q"}
TokOf == <<"k1", "k2", "k3", "k4">>
Tok(m) == TokOf[m]                 \* M m's resume token
Toks == {Tok(m) : m \in Ms}
TokM(x) == CHOOSE m \in Ms : Tok(m) = x
Body(t) == CASE t = "B" -> <<"blocking", "end">>
             [] t = "Y" -> <<"yield">>          \* forever
             [] t = "W" -> <<"spawn", "wait", "end">>
             [] t = "K" -> <<"goexit">>
             [] t = "G" -> <<"goexit">>
             [] t = "Q" -> <<"end">>
Group == {"K"}                     \* W's group's children

\* A goroutine frame: a task's (run, with its deferred call) or a helper's
\* (the help loop of the Wait of the task below it).
TF(t) == <<"task", t>>
HF(t) == <<"helper", t>>

VARIABLES
    glob,     \* the global queue: tasks and resume tokens
    lq,       \* the P's queue (runnext and ring)
    holder,   \* the M that holds the P, 0 for none
    pidle,    \* the P is on the Sched's idle list
    pend,     \* the P waits in a handoff for an M (only with NM Ms made)
    made,     \* Ms made: 1..made exist
    pc,       \* pc[m]: where M m is
    gs,       \* gs[m]: the frames of M m's current goroutine, innermost last
    note,     \* note[m]: M m's note is woken
    tpc,      \* tpc[t]: the steps of Body(t) done
    gn,       \* W's group's count of unfinished tasks
    gwait,    \* W is registered as the group's waiter
    started,  \* tasks that have started
    done,     \* tasks that have ended, by returning or by Goexit
    called,   \* tasks that called Goexit
    goexited  \* tasks that ended by Goexit

vars == <<glob, lq, holder, pidle, pend, made, pc, gs, note, tpc, gn, gwait,
          started, done, called, goexited>>

\* An M's places: "none" not made; "park" on the idle M list; "find"
\* findRunnable; "run" its current task's body; "help" the help loop of the
\* current task's Wait; "wlock" the Wait's look under g.mu after giveUpP;
\* "incall" Blocking's call, without the P; "racq" reacquire's AcquireP;
\* "wput", "wwake", "wpark" waitP (the token's put, Wakep, the park on the
\* note); "exitp" exitP after handing its P to a waiting task; "dead" (the
\* mutant GoexitEndsM only).
MPCs == {"none", "park", "find", "run", "help", "wlock", "incall", "racq",
         "wput", "wwake", "wpark", "exitp", "dead"}

Init ==
    /\ glob = <<"B", "Y", "W", "G", "Q">> /\ lq = <<>>
    /\ holder = 1 /\ pidle = FALSE /\ pend = FALSE /\ made = 1
    /\ pc = [m \in Ms |-> IF m = 1 THEN "find" ELSE "none"]
    /\ gs = [m \in Ms |-> <<>>]
    /\ note = [m \in Ms |-> FALSE]
    /\ tpc = [t \in Tasks |-> 0]
    /\ gn = 0 /\ gwait = FALSE
    /\ started = {} /\ done = {} /\ called = {} /\ goexited = {}

IdleMs == {m \in 1..made : pc[m] = "park"}
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
Top(s) == s[Len(s)]
Pop(s) == SubSeq(s, 1, Len(s) - 1)
\* The task M m runs: the innermost task frame of its goroutine.
Cur(m) == LET i == CHOOSE j \in DOMAIN gs[m] :
                     /\ gs[m][j][1] = "task"
                     /\ \A k \in DOMAIN gs[m] : k > j => gs[m][k][1] # "task"
          IN gs[m][i][2]
Op(m) == Body(Cur(m))[tpc[Cur(m)] + 1]
Step(m) == tpc' = [tpc EXCEPT ![Cur(m)] = @ + 1]

(***************************************************************************)
(* startm for the P: the idle M that parked first, else a new M (NeedM),   *)
(* else the handoff waits for the next M that stops. pc0 is the M places   *)
(* after the caller's own change.                                          *)
(***************************************************************************)
StartM(pc0) ==
    IF IdleMs # {}
      THEN LET n == MinOf(IdleMs)
           IN /\ holder' = n /\ pc' = [pc0 EXCEPT ![n] = "find"]
              /\ UNCHANGED <<made, pend>>
      ELSE IF made < NM
        THEN /\ made' = made + 1 /\ holder' = made + 1
             /\ pc' = [pc0 EXCEPT ![made + 1] = "find"] /\ UNCHANGED pend
        ELSE /\ pend' = TRUE /\ holder' = 0 /\ pc' = pc0 /\ UNCHANGED made

\* Wakep with spinning abstracted: an idle P gets an M.
Wakep(pc0) ==
    IF pidle THEN pidle' = FALSE /\ StartM(pc0)
    ELSE /\ pc' = pc0 /\ UNCHANGED <<pidle, holder, pend, made>>

\* giveUpP for M m: claim (pTask -> pIdle) and HandoffP; with one P it
\* always starts an M. The mutant puts the P on the idle list instead.
\* Without the P (only in the mutant BlockingKeepsNoP) there is nothing to
\* give.
GiveUpP(m, pc0) ==
    IF holder # m
      THEN pc' = pc0 /\ UNCHANGED <<holder, pidle, pend, made>>
    ELSE IF Mutant = "GiveUpIdlesP"
      THEN /\ pidle' = TRUE /\ holder' = 0 /\ pc' = pc0 /\ UNCHANGED <<pend, made>>
      ELSE StartM(pc0) /\ UNCHANGED pidle

\* stopm for M m: a waiting handoff, else park on the idle list.
StopM(m, pc0) ==
    IF pend
      THEN /\ pend' = FALSE /\ holder' = m /\ pc' = [pc0 EXCEPT ![m] = "find"]
      ELSE /\ pc' = [pc0 EXCEPT ![m] = "park"] /\ UNCHANGED <<pend, holder>>

(***************************************************************************)
(* findRunnable on M m (holding the P): the P's queue, then one item of    *)
(* the global queue, else releasep, pidleput, stopm. A task starts on the  *)
(* M's goroutine (execute, run). A resume token hands the P to its waiting *)
(* M (resume: the note woken) and the M goes to exitP.                     *)
(***************************************************************************)
Take(m, x) ==
    IF x \in Tasks
      THEN /\ pc' = [pc EXCEPT ![m] = "run"] /\ gs' = [gs EXCEPT ![m] = <<TF(x)>>]
           /\ started' = started \cup {x}
           /\ UNCHANGED <<holder, note>>
      ELSE LET v == TokM(x) IN
           /\ holder' = v /\ note' = [note EXCEPT ![v] = TRUE]
           /\ pc' = [pc EXCEPT ![m] = "exitp"]
           /\ UNCHANGED <<gs, started>>

FindRunnable(m) ==
    /\ pc[m] = "find"
    /\ IF lq # <<>>
         THEN /\ lq' = Tail(lq) /\ Take(m, Head(lq)) /\ UNCHANGED <<glob, pidle>>
       ELSE IF glob # <<>>
         THEN /\ glob' = Tail(glob) /\ Take(m, Head(glob)) /\ UNCHANGED <<lq, pidle>>
       ELSE /\ holder' = 0 /\ pidle' = TRUE /\ pc' = [pc EXCEPT ![m] = "park"]
            /\ UNCHANGED <<glob, lq, gs, note, started>>
    /\ UNCHANGED <<pend, made, tpc, gn, gwait, done, called, goexited>>

\* exitP: an idle P, a waiting handoff, else park.
ExitP(m) ==
    /\ pc[m] = "exitp"
    /\ IF pidle
         THEN /\ pidle' = FALSE /\ holder' = m /\ pc' = [pc EXCEPT ![m] = "find"]
              /\ UNCHANGED pend
         ELSE StopM(m, pc) /\ UNCHANGED pidle
    /\ UNCHANGED <<glob, lq, made, gs, note, tpc, gn, gwait, started, done,
                   called, goexited>>

(***************************************************************************)
(* The body of the task M m runs.                                          *)
(***************************************************************************)
\* The group's finish for fin of its tasks ending on M m, whose own next
\* place is pc0: the last readies the registered waiter (ready: its token
\* into the finisher's P's queue, or, without a P, the global queue and
\* Wakep).
Finish(m, fin, pc0) ==
    /\ gn' = gn - fin
    /\ IF gn - fin = 0 /\ fin > 0 /\ gwait
         THEN LET v == CHOOSE v \in Ms : pc[v] = "wpark" /\ gs[v] # <<>> /\ Cur(v) = "W"
              IN /\ gwait' = FALSE
                 /\ IF holder = m
                      THEN /\ lq' = Append(lq, Tok(v)) /\ pc' = pc0
                           /\ UNCHANGED <<glob, holder, pidle, pend, made>>
                      ELSE /\ glob' = Append(glob, Tok(v)) /\ Wakep(pc0)
                           /\ UNCHANGED lq
         ELSE /\ pc' = pc0 /\ UNCHANGED <<gwait, glob, lq, holder, pidle, pend, made>>

\* After a task on the M's own goroutine: findRunnable, or exitP if the M
\* holds no P (schedule).
Loop(m) == IF holder = m THEN "find" ELSE "exitp"

\* "end": run returns; its deferred call ends the task (the group's finish
\* for K); the M's loop goes on, or, inline, the help loop below it.
End(m) ==
    /\ pc[m] = "run" /\ Op(m) = "end"
    /\ done' = done \cup {Cur(m)} /\ Step(m)
    /\ gs' = [gs EXCEPT ![m] = Pop(@)]
    /\ Finish(m, IF Cur(m) \in Group THEN 1 ELSE 0,
              [pc EXCEPT ![m] = IF Len(gs[m]) = 1 THEN Loop(m) ELSE "help"])
    /\ UNCHANGED <<note, started, called, goexited>>

\* Blocking: giveUpP, then the call (the mutant BlockingHoldsP keeps the P).
Blocking(m) ==
    /\ pc[m] = "run" /\ Op(m) = "blocking"
    /\ IF Mutant = "BlockingHoldsP"
         THEN /\ pc' = [pc EXCEPT ![m] = "incall"] /\ UNCHANGED <<holder, pidle, pend, made>>
         ELSE GiveUpP(m, [pc EXCEPT ![m] = "incall"])
    /\ UNCHANGED <<glob, lq, gs, note, tpc, gn, gwait, started, done, called, goexited>>

\* The call returns: reacquire (the mutant BlockingKeepsNoP goes on
\* without a P; with BlockingHoldsP the P is still held).
Ret(m) ==
    /\ pc[m] = "incall"
    /\ IF Mutant \in {"BlockingKeepsNoP", "BlockingHoldsP"}
         THEN /\ pc' = [pc EXCEPT ![m] = "run"] /\ Step(m)
         ELSE /\ pc' = [pc EXCEPT ![m] = "racq"] /\ UNCHANGED tpc
    /\ UNCHANGED <<glob, lq, holder, pidle, pend, made, gs, note, gn, gwait,
                   started, done, called, goexited>>

\* reacquire: AcquireP (an idle P: takeP, startSlice), else waitP.
RAcq(m) ==
    /\ pc[m] = "racq"
    /\ IF pidle
         THEN /\ pidle' = FALSE /\ holder' = m
              /\ IF Op(m) = "wait"
                   THEN pc' = [pc EXCEPT ![m] = "help"] /\ UNCHANGED tpc
                   ELSE pc' = [pc EXCEPT ![m] = "run"] /\ Step(m)
         ELSE /\ pc' = [pc EXCEPT ![m] = "wput"] /\ UNCHANGED <<pidle, holder, tpc>>
    /\ UNCHANGED <<glob, lq, pend, made, gs, note, gn, gwait, started, done,
                   called, goexited>>

\* Yield: with work queued, giveUpP, then waitP; else it returns at once
\* (a step that changes nothing, so it is left out).
Yield(m) ==
    /\ pc[m] = "run" /\ Op(m) = "yield"
    /\ glob # <<>> \/ lq # <<>> \/ holder # m
    /\ GiveUpP(m, [pc EXCEPT ![m] = "wput"])
    /\ UNCHANGED <<glob, lq, gs, note, tpc, gn, gwait, started, done, called, goexited>>

\* waitP: the token at the global queue's tail (the mutant YieldAtHead puts
\* a yield's at its head), Wakep, and the park until resume wakes the note;
\* then the task goes on with the P: after Blocking, after its Yield (Y
\* yields again), or in its Wait's loop.
WPut(m) ==
    /\ pc[m] = "wput"
    /\ glob' = IF Mutant = "YieldAtHead" /\ Op(m) = "yield"
                 THEN <<Tok(m)>> \o glob ELSE Append(glob, Tok(m))
    /\ pc' = [pc EXCEPT ![m] = "wwake"]
    /\ UNCHANGED <<lq, holder, pidle, pend, made, gs, note, tpc, gn, gwait,
                   started, done, called, goexited>>

WWake(m) ==
    /\ pc[m] = "wwake"
    /\ Wakep([pc EXCEPT ![m] = "wpark"])
    /\ UNCHANGED <<glob, lq, gs, note, tpc, gn, gwait, started, done, called, goexited>>

WPark(m) ==
    /\ pc[m] = "wpark" /\ note[m]
    /\ note' = [note EXCEPT ![m] = FALSE]
    /\ CASE Op(m) = "blocking" -> pc' = [pc EXCEPT ![m] = "run"] /\ Step(m)
         [] Op(m) = "yield"    -> pc' = [pc EXCEPT ![m] = "run"] /\ UNCHANGED tpc
         [] Op(m) = "wait"     -> pc' = [pc EXCEPT ![m] = "help"] /\ UNCHANGED tpc
    /\ UNCHANGED <<glob, lq, holder, pidle, pend, made, gs, gn, gwait, started,
                   done, called, goexited>>

\* W: NewGroup and Go: K counted, into the P's queue (the holder's spawn;
\* wakeIfIdle finds no P idle beside it), or, without the P, into the
\* global queue with Wakep.
Spawn(m) ==
    /\ pc[m] = "run" /\ Op(m) = "spawn"
    /\ gn' = gn + 1 /\ Step(m)
    /\ IF holder = m
         THEN /\ lq' = Append(lq, "K")
              /\ UNCHANGED <<glob, holder, pidle, pend, made, pc>>
         ELSE /\ glob' = Append(glob, "K") /\ Wakep(pc) /\ UNCHANGED lq
    /\ UNCHANGED <<gs, note, gwait, started, done, called, goexited>>

\* Wait: done already, it returns at once; else it switches to a helper
\* goroutine of the M (the mutant GoexitUnwindsWaiter runs the help on the
\* waiting task's own goroutine).
Wait(m) ==
    /\ pc[m] = "run" /\ Op(m) = "wait"
    /\ IF gn = 0
         THEN Step(m) /\ UNCHANGED <<gs, pc>>
         ELSE /\ gs' = IF Mutant = "GoexitUnwindsWaiter" THEN gs
                       ELSE [gs EXCEPT ![m] = Append(@, HF(Cur(m)))]
              /\ pc' = [pc EXCEPT ![m] = "help"] /\ UNCHANGED tpc
    /\ UNCHANGED <<glob, lq, holder, pidle, pend, made, note, gn, gwait,
                   started, done, called, goexited>>

\* The help loop: the group done, the Wait returns (back on the waiting
\* task's goroutine); its own child at the P's queue's head runs inline
\* (helpOwn, executeNested); else giveUpP and the look under g.mu.
Help(m) ==
    /\ pc[m] = "help"
    /\ IF gn = 0
         THEN /\ gs' = [gs EXCEPT ![m] = IF Top(@)[1] = "helper" THEN Pop(@) ELSE @]
              /\ pc' = [pc EXCEPT ![m] = "run"] /\ Step(m)
              /\ UNCHANGED <<lq, holder, pidle, pend, made, started>>
       ELSE IF holder = m /\ lq # <<>> /\ Head(lq) \in Group
         THEN /\ lq' = Tail(lq) /\ gs' = [gs EXCEPT ![m] = Append(@, TF(Head(lq)))]
              /\ started' = started \cup {Head(lq)}
              /\ pc' = [pc EXCEPT ![m] = "run"]
              /\ UNCHANGED <<tpc, holder, pidle, pend, made>>
         ELSE /\ GiveUpP(m, [pc EXCEPT ![m] = "wlock"])
              /\ UNCHANGED <<lq, gs, tpc, started>>
    /\ UNCHANGED <<glob, note, gn, gwait, done, called, goexited>>

\* Under g.mu: done, reacquire; else register as the waiter and park.
WLock(m) ==
    /\ pc[m] = "wlock"
    /\ IF gn = 0
         THEN pc' = [pc EXCEPT ![m] = "racq"] /\ UNCHANGED gwait
         ELSE pc' = [pc EXCEPT ![m] = "wpark"] /\ gwait' = TRUE
    /\ UNCHANGED <<glob, lq, holder, pidle, pend, made, gs, note, tpc, gn,
                   started, done, called, goexited>>

(***************************************************************************)
(* runtime.Goexit in the task M m runs: its goroutine unwinds. Each task   *)
(* frame's deferred call ends that task (a *PanicError with Goexit set),   *)
(* K's with the group's finish (the last readies the waiter: the token to  *)
(* the finisher's P's queue). A helper frame is the bottom of a helper     *)
(* goroutine: the Wait below it goes on with a new helper. With no helper  *)
(* frame, the M's goroutine ends and the M goes on, on a new goroutine,   *)
(* holding its P (mexit, mstart(held)): findRunnable.                      *)
(***************************************************************************)
\* The frames a Goexit on M m unwinds: down to the innermost helper frame,
\* or all of them.
Unwound(m) ==
    LET hs == {j \in DOMAIN gs[m] : gs[m][j][1] = "helper"}
        lo == IF hs = {} THEN 1 ELSE CHOOSE j \in hs : \A k \in hs : k <= j
    IN {gs[m][j][2] : j \in {j \in DOMAIN gs[m] : j >= lo /\ gs[m][j][1] = "task"}}

Goexit(m) ==
    /\ pc[m] = "run" /\ Op(m) = "goexit"
    /\ LET ended == Unwound(m)
           hs == {j \in DOMAIN gs[m] : gs[m][j][1] = "helper"}
           lo == IF hs = {} THEN 0 ELSE CHOOSE j \in hs : \A k \in hs : k <= j
           fin == IF Mutant = "GoexitSkipsFinish" THEN 0
                  ELSE Cardinality(ended \cap Group)
       IN /\ called' = called \cup {Cur(m)}
          /\ goexited' = goexited \cup ended /\ done' = done \cup ended
          /\ Step(m)
          /\ gs' = [gs EXCEPT ![m] = IF lo > 0 THEN Append(SubSeq(@, 1, lo - 1), HF(@[lo][2]))
                                     ELSE <<>>]
          /\ Finish(m, fin,
                    [pc EXCEPT ![m] = IF lo > 0 THEN "help"
                                      ELSE IF Mutant = "GoexitEndsM" THEN "dead"
                                      ELSE Loop(m)])
    /\ UNCHANGED <<note, started>>

MStep(m) ==
    \/ FindRunnable(m) \/ ExitP(m) \/ End(m) \/ Blocking(m) \/ RAcq(m)
    \/ Yield(m) \/ WPut(m) \/ WWake(m) \/ WPark(m) \/ Spawn(m) \/ Wait(m)
    \/ Help(m) \/ WLock(m) \/ Goexit(m)

Next == \E m \in Ms : MStep(m) \/ Ret(m)

\* Every M step weakly fair; a call's return is not (a call may block
\* forever): CallsReturn asks for it.
Spec == Init /\ [][Next]_vars /\ \A m \in Ms : WF_vars(MStep(m))

CallsReturn == \A m \in Ms : WF_vars(Ret(m))

---------------------------------------------------------------------------
TypeOK ==
    /\ glob \in Seq(Tasks \cup Toks) /\ lq \in Seq(Tasks)
    /\ holder \in 0..NM /\ pidle \in BOOLEAN /\ pend \in BOOLEAN
    /\ made \in 1..NM /\ pc \in [Ms -> MPCs]
    /\ \A m \in Ms : gs[m] \in Seq({"task", "helper"} \X Tasks) /\ Len(gs[m]) <= 3
    /\ note \in [Ms -> BOOLEAN] /\ tpc \in [Tasks -> 0..3]
    /\ gn \in 0..1 /\ gwait \in BOOLEAN
    /\ started \subseteq Tasks /\ done \subseteq Tasks
    /\ called \subseteq Tasks /\ goexited \subseteq Tasks

\* A task runs only on an M that holds a P: never beside Procs others (a
\* task back from Blocking takes a P first). The P has one owner: its
\* holder, the idle list, or a handoff that waits.
TasksRunOnPs ==
    /\ \A m \in Ms : pc[m] \in {"find", "run", "help"} => holder = m
    /\ (IF holder # 0 THEN 1 ELSE 0) + (IF pidle THEN 1 ELSE 0)
         + (IF pend THEN 1 ELSE 0) = 1

\* No lost wakeup: while work is queued and the P idles, an M is about to
\* take a P (reacquire's AcquireP, exitP) or to Wakep after queuing its
\* token.
NoLostWakeup ==
    (glob # <<>> \/ lq # <<>>) /\ pidle =>
        \E m \in Ms : pc[m] \in {"racq", "wwake", "exitp"}

\* Goexit ends only the task that called it.
OnlyCallerEnds == goexited \subseteq called

\* Every task starts, even if Blocking's call never returns and Y yields
\* forever: a blocked call's P, a yield's P and the P of an M whose
\* goroutine ended in Goexit all serve the queue.
QueuedTasksRun == <>(started = Tasks)

\* If calls return, every task that gave its P up goes on: after
\* Blocking, after each Yield, and after a Wait (the group's count falls
\* with a Goexit too, so the waiter returns).
Waiting(m) == pc[m] \in {"incall", "racq", "wput", "wwake", "wpark", "wlock"}
TasksGoOn == CallsReturn => \A m \in Ms : Waiting(m) ~> pc[m] \in {"run", "help"}
=============================================================================
