---------------------------- MODULE ExecutorClose ----------------------------
(***************************************************************************)
(* Close and checkDead (executor/executor.go: submit, leave, checkQuiet,   *)
(* checkDead, shutdown), which Executor.tla leaves out: Close returns only *)
(* when every accepted task has run, and it does return. With Deadline,    *)
(* Shutdown's deadline too (abandonAll, abandoned, execute's drop): the    *)
(* deadline may pass at any time after closing (or never: its step is not  *)
(* fair); then the Ms drop what they find, running tasks lose their P and  *)
(* run on, and Shutdown returns, once no P is held and nothing is queued,  *)
(* the number dropped.                                                     *)
(*                                                                         *)
(* An outside submitter submits tasks 1..NT one by one (submit: inflight++, *)
(* the closing check, the global put, Wakep, leave); Close sets closing,   *)
(* checks for quiescence (checkQuiet) and sleeps until someone wakes it    *)
(* (wakeQuiet); an M that parks checks for quiescence under the scheduler  *)
(* lock (mput's checkDead). Quiescent: closing, no submit in flight, every *)
(* M parked, no queue holds work. Every load is a step. The Ps, spinning   *)
(* and the local queues are Executor.tla's: here an M takes from the       *)
(* global queue or parks, and Wakep wakes a parked M.                      *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    NT,       \* tasks the submitter tries to submit
    Deadline, \* TRUE: Shutdown with a deadline that may pass; FALSE: Close
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   SubmitChecksBeforeInflight  submit checks closing before it counts
\*                               itself in flight (the Go mutation): Close
\*                               can find the executor quiet between the
\*                               two, and the task is accepted and never runs
\*   LeaveSkipsCheck             leave does not check for quiescence (the
\*                               spec only): the last submit out while
\*                               closing, rejected, leaves Close asleep
\*   RunDropped                  an M past the deadline counts the task it
\*                               found as dropped and runs it anyway (the
\*                               spec only): handed back and run
\*   AbandonNoTakesCheck         abandoned's look skips the re-read of the
\*                               P's takeP counts (the spec only): it can
\*                               miss a task an M took in hand meanwhile,
\*                               which is then neither run nor counted
\*   NoAbandonFlag               abandonAll never sets abandon (the spec
\*                               only): the Ms run what they find, also
\*                               after Shutdown has returned
\*   AbandonIgnoresInflight      abandoned does not wait for submits in
\*                               flight (the Go mutation; the Go code's bug
\*                               until bbb705a): a task put after its look
\*                               is accepted, never run, never counted
Mutants == {"none", "SubmitChecksBeforeInflight", "LeaveSkipsCheck",
            "RunDropped", "AbandonNoTakesCheck", "NoAbandonFlag",
            "AbandonIgnoresInflight"}

ASSUME /\ IsFiniteSet(Ms) /\ Ms # {} /\ NT \in Nat /\ NT >= 1
       /\ Deadline \in BOOLEAN /\ Mutant \in Mutants

Sub == "sub"
Closer == "close"
Tasks == 1..NT
\* With Deadline, task 1 spawns one task while it runs (Task.Go: without
\* its P, to the global queue with a Wakep); it is not an outside submit.
Kid == NT + 1
AllTasks == 1..NT + 1

VARIABLES
    glob,     \* tasks in the global queue
    acc,      \* tasks accepted (their submit returns nil)
    ran,      \* tasks that started to run
    closing,  \* e.closing
    inflight, \* e.inflight
    quiet,    \* e.quietBy: 0, or why Close was woken (1 quiet, 2 the deadline)
    midle,    \* the parked Ms (the idle M list)
    pc,       \* pc[a]: where agent a is
    next,     \* the task the submitter is on
    back,     \* back[a]: where a's checkQuiet returns to
    abandon,  \* e.abandon
    dropped,  \* tasks dropped (e.dropped counts them)
    hasP,     \* hasP[m]: m holds a P (pSched in find and exec, pTask in run)
    hand,     \* hand[m]: the task m took out of the queue, 0 for none
    took,     \* a takeP since abandoned's look read the Ps' takeP counts
              \* (p.takes): its re-read finds their sum changed
    cntOK,    \* history: at Shutdown's return every accepted task had
              \* started or was dropped (so the count it returns is of all
              \* the others)
    late      \* history: a task started after Shutdown returned

vars == <<glob, acc, ran, closing, inflight, quiet, midle, pc, next, back,
          abandon, dropped, hasP, hand, took, cntOK, late>>
svars == <<abandon, dropped, hasP, hand, took, cntOK, late>>

Agents == Ms \cup {Sub, Closer}

Init ==
    /\ glob = {} /\ acc = {} /\ ran = {} /\ closing = 0 /\ inflight = 0
    /\ quiet = 0 /\ midle = Ms
    /\ pc = [a \in Agents |-> IF a \in Ms THEN "parked" ELSE "s0"]
    /\ next = 1
    /\ back = [a \in Agents |-> "s0"]
    /\ abandon = 0 /\ dropped = {} /\ hasP = [m \in Ms |-> FALSE]
    /\ hand = [m \in Ms |-> 0] /\ took = FALSE /\ cntOK = TRUE
    /\ late = FALSE

Goto(a, l) == pc' = [pc EXCEPT ![a] = l]
Work == glob # {}
\* sched.mu is free: no M is in mput's checkDead.
Unlocked == \A m \in Ms : pc[m] \notin {"cd1", "cd2"}
\* wakeQuiet(why): the first caller's reason sticks (a CAS from 0).
WakeQuiet(why) == quiet' = IF quiet = 0 THEN why ELSE quiet


(***************************************************************************)
(* checkQuiet for agent a, one load per step: inflight, then (under the    *)
(* lock) the idle M count, then Config.Work; all quiet: wakeQuiet. Then    *)
(* on to back[a].                                                          *)
(***************************************************************************)
CQ1(a) ==
    /\ pc[a] = "cq1"
    /\ Goto(a, IF inflight = 0 THEN "cq2" ELSE back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars
CQ2(a) ==
    /\ pc[a] = "cq2" /\ Unlocked
    /\ Goto(a, IF midle = Ms THEN "cq3" ELSE back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars
CQ3(a) ==
    /\ pc[a] = "cq3"
    /\ IF ~Work THEN WakeQuiet(1) ELSE UNCHANGED quiet
    /\ Goto(a, back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, midle, next, back>>
    /\ UNCHANGED svars
CheckQuiet(a) == CQ1(a) \/ CQ2(a) \/ CQ3(a)

CallCQ(a, r) == /\ Goto(a, "cq1") /\ back' = [back EXCEPT ![a] = r]

(***************************************************************************)
(* The submitter: submit(t).                                               *)
(***************************************************************************)
S0 ==
    /\ pc[Sub] = "s0" /\ next <= NT
    /\ IF Mutant = "SubmitChecksBeforeInflight"
         THEN /\ Goto(Sub, IF closing # 0 THEN "sdone" ELSE "sinc")   \* ErrClosed
              /\ UNCHANGED inflight
         ELSE inflight' = inflight + 1 /\ Goto(Sub, "s1")
    /\ UNCHANGED <<glob, acc, ran, closing, quiet, midle, next, back>>
    /\ UNCHANGED svars

\* SubmitChecksBeforeInflight: counted in flight after the check, with no
\* second check.
SInc ==
    /\ pc[Sub] = "sinc"
    /\ inflight' = inflight + 1 /\ Goto(Sub, "s2")
    /\ UNCHANGED <<glob, acc, ran, closing, quiet, midle, next, back>>
    /\ UNCHANGED svars

\* The closing check after counting in flight: closing, leave and ErrClosed.
S1 ==
    /\ pc[Sub] = "s1"
    /\ IF closing # 0
         THEN Goto(Sub, "leave") /\ back' = [back EXCEPT ![Sub] = "sdone"]
         ELSE Goto(Sub, "s2") /\ UNCHANGED back
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next>>
    /\ UNCHANGED svars

\* globalq.Put: the task is accepted.
S2 ==
    /\ pc[Sub] = "s2"
    /\ glob' = glob \cup {next} /\ acc' = acc \cup {next}
    /\ Goto(Sub, "s3")
    /\ UNCHANGED <<ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars

\* Wakep (abstracted): wake a parked M, if any, with a P (startm; takeP
\* counts it).
S3 ==
    /\ pc[Sub] = "s3" /\ Unlocked
    /\ IF midle # {}
         THEN LET m == CHOOSE x \in midle : TRUE
              IN /\ midle' = midle \ {m}
                 /\ pc' = [pc EXCEPT ![m] = "find", ![Sub] = "leave"]
                 /\ hasP' = [hasP EXCEPT ![m] = TRUE] /\ took' = TRUE
         ELSE Goto(Sub, "leave") /\ UNCHANGED <<midle, hasP, took>>
    /\ back' = [back EXCEPT ![Sub] = "s0"]
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, next>>
    /\ UNCHANGED <<abandon, dropped, hand, cntOK, late>>

\* leave: the last submit out while closing checks for quiescence.
Leave ==
    /\ pc[Sub] = "leave"
    /\ inflight' = inflight - 1
    /\ next' = IF back[Sub] = "s0" THEN next + 1 ELSE next
    /\ IF inflight = 1 /\ closing # 0 /\ Mutant # "LeaveSkipsCheck"
         THEN Goto(Sub, "cq1")
         ELSE Goto(Sub, back[Sub])
    /\ UNCHANGED <<glob, acc, ran, closing, quiet, midle, back>>
    /\ UNCHANGED svars

SubStep == S0 \/ SInc \/ S1 \/ S2 \/ S3 \/ Leave \/ CheckQuiet(Sub)

(***************************************************************************)
(* Close: closing, then checkQuiet, then sleep until woken. Woken by the   *)
(* deadline (quiet = 2), Shutdown abandons: abandonAll sets abandon, then  *)
(* polls abandoned until a look finds no P held and no work, with no      *)
(* takeP between its first and last load, and returns e.dropped.          *)
(***************************************************************************)
C0 ==
    /\ pc[Closer] = "s0"
    /\ closing' = 1 /\ CallCQ(Closer, "csleep")
    /\ UNCHANGED <<glob, acc, ran, inflight, quiet, midle, next>>
    /\ UNCHANGED svars
CSleep ==
    /\ pc[Closer] = "csleep" /\ quiet # 0
    /\ Goto(Closer, IF quiet = 1 THEN "cdone" ELSE "ab0")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars

\* The context.AfterFunc of Shutdown's ctx: wakeQuiet(2), at any time after
\* closing and before Shutdown returns; not fair, so it may never come.
DeadlinePasses ==
    /\ Deadline /\ pc[Closer] \notin {"s0", "cdone"} /\ quiet = 0
    /\ quiet' = 2
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, midle, pc, next, back>>
    /\ UNCHANGED <<abandon, dropped, hasP, hand, took, cntOK, late>>

\* abandonAll: abandon = 1.
AB0 ==
    /\ pc[Closer] = "ab0"
    /\ abandon' = IF Mutant = "NoAbandonFlag" THEN abandon ELSE 1
    /\ Goto(Closer, "ab1")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<dropped, hasP, hand, took, cntOK, late>>
\* abandoned: first e.inflight, until no submit is in flight (one that
\* passed its closing check may still put its task: that look would miss
\* it); a submit that counts itself in later sees closing and is refused,
AB0I ==
    /\ pc[Closer] = "ab1"
    /\ inflight = 0 \/ Mutant = "AbandonIgnoresInflight"
    /\ Goto(Closer, "ab1t")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars
\* then the sum of the takeP counts,
AB1 ==
    /\ pc[Closer] = "ab1t"
    /\ took' = FALSE /\ Goto(Closer, "ab2")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<abandon, dropped, hasP, hand, cntOK, late>>
\* then every P's status word: a P in pTask is retaken (its task runs on
\* without it); one in pSched (an M in findRunnable, or with a task in
\* hand) means not yet,
AB2 ==
    /\ pc[Closer] = "ab2"
    /\ hasP' = [m \in Ms |-> IF pc[m] = "run" THEN FALSE ELSE hasP[m]]
    /\ Goto(Closer, IF \A m \in Ms : pc[m] \notin {"find", "exec"} THEN "ab3" ELSE "ab1")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<abandon, dropped, hand, took, cntOK, late>>
\* then Config.Work,
AB3 ==
    /\ pc[Closer] = "ab3"
    /\ Goto(Closer, IF ~Work THEN "ab4" ELSE "ab1")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars
\* then the takeP counts again: unchanged, no P left pIdle during the look,
\* and Shutdown returns the count of the tasks dropped.
AB4 ==
    /\ pc[Closer] = "ab4"
    /\ IF ~took \/ Mutant = "AbandonNoTakesCheck"
         THEN /\ Goto(Closer, "cdone")
              /\ cntOK' = (acc \subseteq ran \cup dropped)
         ELSE Goto(Closer, "ab1") /\ UNCHANGED cntOK
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<abandon, dropped, hasP, hand, took, late>>

CloseStep == C0 \/ CSleep \/ CheckQuiet(Closer) \/ AB0 \/ AB0I \/ AB1 \/ AB2 \/ AB3 \/ AB4

(***************************************************************************)
(* An M: take a task from the global queue into its hands, or park (mput   *)
(* under the lock, then checkDead's loads: closing and inflight, the idle  *)
(* count it was given, Config.Work). execute then drops the task past the  *)
(* deadline (counted) or starts it; a task ends later, and an M whose P    *)
(* was retaken meanwhile takes an idle P (exitP: there are as many Ps as   *)
(* Ms here).                                                               *)
(***************************************************************************)
Find(m) ==
    /\ pc[m] = "find"
    /\ IF Work
         THEN \E t \in glob : /\ glob' = glob \ {t}
                              /\ hand' = [hand EXCEPT ![m] = t]
                              /\ Goto(m, "exec")
                              /\ UNCHANGED <<midle, hasP>>
         ELSE /\ Unlocked /\ midle' = midle \cup {m}
              /\ hasP' = [hasP EXCEPT ![m] = FALSE]
              /\ Goto(m, IF midle' = Ms THEN "cd1" ELSE "parked")
              /\ UNCHANGED <<glob, hand>>
    /\ UNCHANGED <<acc, ran, closing, inflight, quiet, next, back>>
    /\ UNCHANGED <<abandon, dropped, took, cntOK, late>>

\* execute: past the deadline the task is dropped (RunDropped: and run
\* too); else it starts, holding the P in pTask.
Exec(m) ==
    /\ pc[m] = "exec"
    /\ LET t == hand[m]
           drop == abandon # 0
           run == ~drop \/ Mutant = "RunDropped"
       IN /\ dropped' = IF drop THEN dropped \cup {t} ELSE dropped
          /\ ran' = IF run THEN ran \cup {t} ELSE ran
          /\ late' = (late \/ (run /\ pc[Closer] = "cdone"))
          /\ Goto(m, IF run THEN "run" ELSE "find")
          /\ hand' = IF run THEN hand ELSE [hand EXCEPT ![m] = 0]
    /\ UNCHANGED <<glob, acc, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<abandon, hasP, took, cntOK>>

\* The task returns: on with its P, or, retaken, exitP's pidleget (takeP).
End(m) ==
    /\ pc[m] = "run"
    /\ hand' = [hand EXCEPT ![m] = 0]
    /\ hasP' = [hasP EXCEPT ![m] = TRUE]
    /\ took' = (took \/ ~hasP[m])
    /\ Goto(m, "find")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED <<abandon, dropped, cntOK, late>>

\* checkDead, under the lock, called by mput with idle = nm (every M
\* parked): the loads of closing and inflight, then Config.Work.
CD1(m) ==
    /\ pc[m] = "cd1"
    /\ Goto(m, IF closing # 0 /\ inflight = 0 THEN "cd2" ELSE "parked")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
    /\ UNCHANGED svars
CD2(m) ==
    /\ pc[m] = "cd2"
    /\ IF ~Work THEN WakeQuiet(1) ELSE UNCHANGED quiet
    /\ Goto(m, "parked")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, midle, next, back>>
    /\ UNCHANGED svars
\* With Deadline, task 1 spawns Kid once while it runs, with its P or
\* retaken: to the global queue (a spawn with the P goes to its runnext in
\* Go; here every queue is the global one), then Wakep as S3's. A spawn
\* after Shutdown has returned is what abandon is for: the Ms drop it.
Spawn(m) ==
    /\ Deadline /\ pc[m] = "run" /\ hand[m] = 1 /\ Unlocked
    /\ Kid \notin glob \cup ran \cup dropped \cup {hand[x] : x \in Ms}
    /\ glob' = glob \cup {Kid}
    /\ IF midle # {}
         THEN LET x == CHOOSE y \in midle : TRUE
              IN /\ midle' = midle \ {x}
                 /\ Goto(x, "find")
                 /\ hasP' = [hasP EXCEPT ![x] = TRUE] /\ took' = TRUE
         ELSE UNCHANGED <<midle, pc, hasP, took>>
    /\ UNCHANGED <<acc, ran, closing, inflight, quiet, next, back>>
    /\ UNCHANGED <<abandon, dropped, hand, cntOK, late>>
MStep(m) == Find(m) \/ Exec(m) \/ End(m) \/ CD1(m) \/ CD2(m) \/ Spawn(m)

Next == SubStep \/ CloseStep \/ DeadlinePasses \/ \E m \in Ms : MStep(m)

Spec == Init /\ [][Next]_vars /\ WF_vars(SubStep) /\ WF_vars(CloseStep)
        /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
TypeOK ==
    /\ glob \subseteq AllTasks /\ acc \subseteq Tasks /\ ran \subseteq AllTasks
    /\ closing \in {0, 1} /\ inflight \in 0..1 /\ quiet \in {0, 1, 2}
    /\ midle \subseteq Ms /\ next \in 1..NT + 1
    /\ abandon \in {0, 1} /\ dropped \subseteq AllTasks
    /\ hasP \in [Ms -> BOOLEAN] /\ hand \in [Ms -> 0..NT + 1]
    /\ took \in BOOLEAN
    /\ cntOK \in BOOLEAN /\ late \in BOOLEAN

\* Close returns only when every accepted task has run (and so it never
\* returns while one that is accepted later is still to run). Shutdown
\* past its deadline is held to ShutdownCountExact instead.
CloseOnlyWhenAllRan == pc[Closer] = "cdone" /\ quiet = 1 => acc \subseteq ran

\* A task is dropped or run, never both.
RunOrDropped == ran \cap dropped = {}

\* Shutdown's count is exact, as its documentation promises: when it
\* returns past its deadline, every task accepted has started or been
\* dropped (and counted: its count is e.dropped then), so started + notRun
\* = accepted, and no task is accepted after it returns.
ShutdownCountExact == pc[Closer] = "cdone" /\ quiet = 2 => cntOK

\* Nothing starts after Shutdown has returned: the Ms drop what they find.
NothingStartsAfter == ~late

\* Close returns, once the submitter is done.
CloseReturns == <>(pc[Closer] = "cdone")
=============================================================================
