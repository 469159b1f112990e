---------------------------- MODULE ExecutorClose ----------------------------
(***************************************************************************)
(* Close and checkDead (executor/executor.go: submit, leave, checkQuiet,   *)
(* checkDead, shutdown), which Executor.tla leaves out: Close returns only *)
(* when every accepted task has run, and it does return.                   *)
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
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   SubmitChecksBeforeInflight  submit checks closing before it counts
\*                               itself in flight (the Go mutation): Close
\*                               can find the executor quiet between the
\*                               two, and the task is accepted and never runs
\*   LeaveSkipsCheck             leave does not check for quiescence (the
\*                               spec only): the last submit out while
\*                               closing, rejected, leaves Close asleep
Mutants == {"none", "SubmitChecksBeforeInflight", "LeaveSkipsCheck"}

ASSUME /\ IsFiniteSet(Ms) /\ Ms # {} /\ NT \in Nat /\ NT >= 1
       /\ Mutant \in Mutants

Sub == "sub"
Closer == "close"
Tasks == 1..NT

VARIABLES
    glob,     \* tasks in the global queue
    acc,      \* tasks accepted (their submit returns nil)
    ran,      \* tasks that ran
    closing,  \* e.closing
    inflight, \* e.inflight
    quiet,    \* e.quietBy: Close was woken
    midle,    \* the parked Ms (the idle M list)
    pc,       \* pc[a]: where agent a is
    next,     \* the task the submitter is on
    back      \* back[a]: where a's checkQuiet returns to

vars == <<glob, acc, ran, closing, inflight, quiet, midle, pc, next, back>>

Agents == Ms \cup {Sub, Closer}

Init ==
    /\ glob = {} /\ acc = {} /\ ran = {} /\ closing = 0 /\ inflight = 0
    /\ quiet = 0 /\ midle = Ms
    /\ pc = [a \in Agents |-> IF a \in Ms THEN "parked" ELSE "s0"]
    /\ next = 1
    /\ back = [a \in Agents |-> "s0"]

Goto(a, l) == pc' = [pc EXCEPT ![a] = l]
Work == glob # {}
\* sched.mu is free: no M is in mput's checkDead.
Unlocked == \A m \in Ms : pc[m] \notin {"cd1", "cd2"}
WakeQuiet == quiet' = 1

(***************************************************************************)
(* checkQuiet for agent a, one load per step: inflight, then (under the    *)
(* lock) the idle M count, then Config.Work; all quiet: wakeQuiet. Then    *)
(* on to back[a].                                                          *)
(***************************************************************************)
CQ1(a) ==
    /\ pc[a] = "cq1"
    /\ Goto(a, IF inflight = 0 THEN "cq2" ELSE back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
CQ2(a) ==
    /\ pc[a] = "cq2" /\ Unlocked
    /\ Goto(a, IF midle = Ms THEN "cq3" ELSE back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
CQ3(a) ==
    /\ pc[a] = "cq3"
    /\ IF ~Work THEN WakeQuiet ELSE UNCHANGED quiet
    /\ Goto(a, back[a])
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, midle, next, back>>
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

\* SubmitChecksBeforeInflight: counted in flight after the check, with no
\* second check.
SInc ==
    /\ pc[Sub] = "sinc"
    /\ inflight' = inflight + 1 /\ Goto(Sub, "s2")
    /\ UNCHANGED <<glob, acc, ran, closing, quiet, midle, next, back>>

\* The closing check after counting in flight: closing, leave and ErrClosed.
S1 ==
    /\ pc[Sub] = "s1"
    /\ IF closing # 0
         THEN Goto(Sub, "leave") /\ back' = [back EXCEPT ![Sub] = "sdone"]
         ELSE Goto(Sub, "s2") /\ UNCHANGED back
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next>>

\* globalq.Put: the task is accepted.
S2 ==
    /\ pc[Sub] = "s2"
    /\ glob' = glob \cup {next} /\ acc' = acc \cup {next}
    /\ Goto(Sub, "s3")
    /\ UNCHANGED <<ran, closing, inflight, quiet, midle, next, back>>

\* Wakep (abstracted): wake a parked M, if any.
S3 ==
    /\ pc[Sub] = "s3" /\ Unlocked
    /\ IF midle # {}
         THEN LET m == CHOOSE x \in midle : TRUE
              IN /\ midle' = midle \ {m}
                 /\ pc' = [pc EXCEPT ![m] = "find", ![Sub] = "leave"]
         ELSE Goto(Sub, "leave") /\ UNCHANGED midle
    /\ back' = [back EXCEPT ![Sub] = "s0"]
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, next>>

\* leave: the last submit out while closing checks for quiescence.
Leave ==
    /\ pc[Sub] = "leave"
    /\ inflight' = inflight - 1
    /\ next' = IF back[Sub] = "s0" THEN next + 1 ELSE next
    /\ IF inflight = 1 /\ closing # 0 /\ Mutant # "LeaveSkipsCheck"
         THEN Goto(Sub, "cq1")
         ELSE Goto(Sub, back[Sub])
    /\ UNCHANGED <<glob, acc, ran, closing, quiet, midle, back>>

SubStep == S0 \/ SInc \/ S1 \/ S2 \/ S3 \/ Leave \/ CheckQuiet(Sub)

(***************************************************************************)
(* Close: closing, then checkQuiet, then sleep until woken.                *)
(***************************************************************************)
C0 ==
    /\ pc[Closer] = "s0"
    /\ closing' = 1 /\ CallCQ(Closer, "csleep")
    /\ UNCHANGED <<glob, acc, ran, inflight, quiet, midle, next>>
CSleep ==
    /\ pc[Closer] = "csleep" /\ quiet # 0
    /\ Goto(Closer, "cdone")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
CloseStep == C0 \/ CSleep \/ CheckQuiet(Closer)

(***************************************************************************)
(* An M: take a task from the global queue and run it, or park (mput under *)
(* the lock, then checkDead's loads: closing and inflight, the idle count  *)
(* it was given, Config.Work).                                             *)
(***************************************************************************)
Find(m) ==
    /\ pc[m] = "find"
    /\ IF Work
         THEN \E t \in glob : glob' = glob \ {t} /\ ran' = ran \cup {t}
                              /\ UNCHANGED <<pc, midle>>
         ELSE /\ Unlocked /\ midle' = midle \cup {m}
              /\ Goto(m, IF midle' = Ms THEN "cd1" ELSE "parked")
              /\ UNCHANGED <<glob, ran>>
    /\ UNCHANGED <<acc, closing, inflight, quiet, next, back>>

\* checkDead, under the lock, called by mput with idle = nm (every M
\* parked): the loads of closing and inflight, then Config.Work.
CD1(m) ==
    /\ pc[m] = "cd1"
    /\ Goto(m, IF closing # 0 /\ inflight = 0 THEN "cd2" ELSE "parked")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, quiet, midle, next, back>>
CD2(m) ==
    /\ pc[m] = "cd2"
    /\ IF ~Work THEN WakeQuiet ELSE UNCHANGED quiet
    /\ Goto(m, "parked")
    /\ UNCHANGED <<glob, acc, ran, closing, inflight, midle, next, back>>
MStep(m) == Find(m) \/ CD1(m) \/ CD2(m)

Next == SubStep \/ CloseStep \/ \E m \in Ms : MStep(m)

Spec == Init /\ [][Next]_vars /\ WF_vars(SubStep) /\ WF_vars(CloseStep)
        /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
TypeOK ==
    /\ glob \subseteq Tasks /\ acc \subseteq Tasks /\ ran \subseteq Tasks
    /\ closing \in {0, 1} /\ inflight \in 0..1 /\ quiet \in {0, 1}
    /\ midle \subseteq Ms /\ next \in 1..NT + 1

\* Close returns only when every accepted task has run (and so it never
\* returns while one that is accepted later is still to run).
CloseOnlyWhenAllRan == pc[Closer] = "cdone" => acc \subseteq ran

\* Close returns, once the submitter is done.
CloseReturns == <>(pc[Closer] = "cdone")
=============================================================================
