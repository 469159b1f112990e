------------------------------ MODULE Spinning ------------------------------
(***************************************************************************)
(* spinning.Sched: spinning-M accounting and parking with no lost wakeup,  *)
(* after "Worker thread parking/unparking" in the runtime's proc.go        *)
(* (wakep, startm, resetspinning, findRunnable's spinning rule and its     *)
(* drop-and-recheck, checkRunqsNoP, pidlegetSpinning's needspinning,       *)
(* stopm). A submitter publishes NTasks tasks to one global queue and      *)
(* calls Wakep after each; Ms run the executor's loop of spinning/doc.go.  *)
(*                                                                         *)
(* Each Go operation is the TLA+ action of the same name, the disjunction  *)
(* of its steps, chosen by a program counter: pc[m] for an M's loop and    *)
(* wpc[a] for a Wakep in progress (by the submitter, or by an M inside     *)
(* ResetSpinning). Every atomic access that another process can race with *)
(* is its own step: a load or CAS of nmspinning, a look at the queue, and  *)
(* each critical section under the scheduler lock.                         *)
(*                                                                         *)
(* A running task may run forever: Finish has no fairness. That is what    *)
(* makes a missing wakeup observable as a liveness violation even when the *)
(* M that holds the work would get to it once its current task ends.       *)
(*                                                                         *)
(* Ps are interchangeable, so they are counted, not named: npidle idle Ps, *)
(* hasP[m], and Ps in flight (handed to a woken M, in a waiting handoff,   *)
(* or held by a Wakep between taking and handing it). The idle M list is a *)
(* set: StartM may wake any idle M (the Go code pops the last one), which  *)
(* only adds behaviours.                                                   *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    Procs,    \* the number of Ps
    NTasks,   \* tasks the submitter submits
    Sub,      \* the submitter (a model value not in Ms)
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each the Go mutation (spinning/mutation.go) of the
\* same name:
\*   DropWithoutRecheck   DropSpinning parks without re-checking the queue
\*   WakepBeforePublish   the submitter calls Wakep before it publishes
\*   NoWakeOnLastSpinner  ResetSpinning does not call Wakep
\*   CountLeak            ResetSpinning does not decrement nmspinning
\*   NoNeedSpinning       ReleaseP ignores needspinning
Mutants == {"none", "DropWithoutRecheck", "WakepBeforePublish",
            "NoWakeOnLastSpinner", "CountLeak", "NoNeedSpinning"}

ASSUME /\ Ms # {} /\ Sub \notin Ms
       /\ Procs \in Nat /\ Procs >= 1
       /\ NTasks \in Nat /\ NTasks >= 1
       /\ Mutant \in Mutants

Actors == Ms \cup {Sub}

VARIABLES
    queue,        \* tasks in the global queue
    taken,        \* tasks an M took out of it
    submitted,    \* tasks the submitter published
    spc,          \* the submitter's program counter
    nmspinning,   \* sched.nmspinning
    npidle,       \* idle Ps: sched.npidle, the size of the idle set
    needspinning, \* sched.needspinning
    pending,      \* handoffs that found no idle M (all spinning here)
    midle,        \* the idle M list
    pc,           \* each M's place in its loop
    spinning,     \* m.spinning
    hasP,         \* the M holds a P
    wpc           \* each actor's Wakep in progress

vars == <<queue, taken, submitted, spc, nmspinning, npidle, needspinning,
          pending, midle, pc, spinning, hasP, wpc>>

MPCs == {"park",     \* asleep in StopM, on midle
         "woken",    \* StartM handed it a P (to spin) and woke it
         "look",     \* holds a P: look at the queue (local and global work)
         "rule",     \* found nothing: BecomeSpinning's rule
         "steal",    \* spinning: look again (steal)
         "found",    \* took a task
         "reset",    \* inside ResetSpinning's Wakep (wpc[m])
         "run",      \* running the task
         "release",  \* ReleaseP
         "drop",     \* DropSpinning: decrement
         "recheck",  \* DropSpinning: look at the queue
         "recheckp", \* DropSpinning: found work, take an idle P
         "stop"}     \* StopM: take a handoff or park
WPCs == {"none", "cas", "getp", "startm"}
SPCs == {"publish", "wakep", "end"}

Init ==
    /\ queue = 0 /\ taken = 0 /\ submitted = 0
    /\ spc = IF Mutant = "WakepBeforePublish" THEN "wakep" ELSE "publish"
    /\ nmspinning = 0 /\ npidle = Procs /\ needspinning = FALSE
    /\ pending = 0
    /\ midle = Ms
    /\ pc = [m \in Ms |-> "park"]
    /\ spinning = [m \in Ms |-> FALSE]
    /\ hasP = [m \in Ms |-> FALSE]
    /\ wpc = [a \in Actors |-> IF a = Sub /\ Mutant = "WakepBeforePublish"
                                THEN "cas" ELSE "none"]

---------------------------------------------------------------------------
(* Wakep(a): the CAS of nmspinning from 0 to 1; under the lock, take an    *)
(* idle P (or set needspinning and give the count back); StartM.           *)

WakepCAS(a) ==
    /\ wpc[a] = "cas"
    /\ IF nmspinning = 0
         THEN /\ nmspinning' = 1
              /\ wpc' = [wpc EXCEPT ![a] = "getp"]
         ELSE /\ wpc' = [wpc EXCEPT ![a] = "none"]
              /\ UNCHANGED nmspinning
    /\ UNCHANGED <<queue, taken, submitted, spc, npidle, needspinning, pending,
                   midle, pc, spinning, hasP>>

WakepGetP(a) ==
    /\ wpc[a] = "getp"
    /\ IF npidle > 0
         THEN /\ npidle' = npidle - 1
              /\ wpc' = [wpc EXCEPT ![a] = "startm"]
              /\ UNCHANGED <<nmspinning, needspinning>>
         ELSE /\ needspinning' = TRUE            \* pidlegetSpinning
              /\ nmspinning' = nmspinning - 1
              /\ wpc' = [wpc EXCEPT ![a] = "none"]
              /\ UNCHANGED npidle
    /\ UNCHANGED <<queue, taken, submitted, spc, pending, midle, pc, spinning, hasP>>

\* startm(p, spinning=TRUE): hand the P to an idle M and wake it, or leave
\* a handoff for the next StopM.
StartM(a) ==
    /\ wpc[a] = "startm"
    /\ IF midle # {}
         THEN \E m \in midle :
                /\ midle' = midle \ {m}
                /\ pc' = [pc EXCEPT ![m] = "woken"]
                /\ UNCHANGED pending
         ELSE /\ pending' = pending + 1
              /\ UNCHANGED <<midle, pc>>
    /\ wpc' = [wpc EXCEPT ![a] = "none"]
    /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle, needspinning,
                   spinning, hasP>>

Wakep(a) == WakepCAS(a) \/ WakepGetP(a) \/ StartM(a)

---------------------------------------------------------------------------
(* Submit: publish, then Wakep (WakepBeforePublish: the other way round).  *)

Publish ==
    /\ spc = "publish"
    /\ queue' = queue + 1
    /\ submitted' = submitted + 1
    /\ IF Mutant = "WakepBeforePublish" /\ submitted + 1 = NTasks
         THEN /\ spc' = "end"                   \* its Wakep came first
              /\ UNCHANGED wpc
         ELSE /\ spc' = "wakep"
              /\ wpc' = [wpc EXCEPT ![Sub] = "cas"]
    /\ UNCHANGED <<taken, nmspinning, npidle, needspinning, pending, midle, pc,
                   spinning, hasP>>

\* The submitter's Wakep, step by step; when it is over, publish the next
\* task (WakepBeforePublish: publish this one) or end.
SubmitWakep ==
    /\ spc = "wakep"
    /\ IF wpc[Sub] # "none"
         THEN /\ Wakep(Sub)
              /\ UNCHANGED spc
         ELSE /\ spc' = IF Mutant = "WakepBeforePublish" \/ submitted < NTasks
                        THEN "publish" ELSE "end"
              /\ UNCHANGED <<queue, taken, submitted, nmspinning, npidle,
                             needspinning, pending, midle, pc, spinning, hasP, wpc>>

Submit == Publish \/ SubmitWakep

---------------------------------------------------------------------------
(* An M's loop: the executor's steps (Look, Steal, Finish) around the       *)
(* operations of spinning.M.                                               *)

Set(f, m, v) == [f EXCEPT ![m] = v]

\* StopM: take a waiting handoff, or park on the idle list (mput); later,
\* once StartM woke it, resume with the P it was handed, spinning.
StopMPark(m) ==
    /\ pc[m] = "stop"
    /\ IF pending > 0
         THEN /\ pending' = pending - 1
              /\ hasP' = Set(hasP, m, TRUE)
              /\ spinning' = Set(spinning, m, TRUE)
              /\ pc' = Set(pc, m, "look")
              /\ UNCHANGED midle
         ELSE /\ midle' = midle \cup {m}
              /\ pc' = Set(pc, m, "park")
              /\ UNCHANGED <<pending, hasP, spinning>>
    /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle, needspinning, wpc>>

StopMResume(m) ==
    /\ pc[m] = "woken"
    /\ hasP' = Set(hasP, m, TRUE)
    /\ spinning' = Set(spinning, m, TRUE)   \* mspinning: the starter counted it
    /\ pc' = Set(pc, m, "look")
    /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle, needspinning,
                   pending, midle, wpc>>

StopM(m) == StopMPark(m) \/ StopMResume(m)

\* The executor's first look: local and global work.
Look(m) ==
    /\ pc[m] = "look"
    /\ IF queue > 0
         THEN /\ queue' = queue - 1 /\ taken' = taken + 1
              /\ pc' = Set(pc, m, "found")
         ELSE /\ pc' = Set(pc, m, "rule")
              /\ UNCHANGED <<queue, taken>>
    /\ UNCHANGED <<submitted, spc, nmspinning, npidle, needspinning, pending,
                   midle, spinning, hasP, wpc>>

\* findRunnable's rule: spin only while 2*nmspinning < Procs - npidle.
BecomeSpinning(m) ==
    /\ pc[m] = "rule"
    /\ IF spinning[m]
         THEN /\ pc' = Set(pc, m, "steal")
              /\ UNCHANGED <<nmspinning, needspinning, spinning>>
         ELSE IF 2 * nmspinning < Procs - npidle
         THEN /\ spinning' = Set(spinning, m, TRUE)
              /\ nmspinning' = nmspinning + 1
              /\ needspinning' = FALSE
              /\ pc' = Set(pc, m, "steal")
         ELSE /\ pc' = Set(pc, m, "release")
              /\ UNCHANGED <<nmspinning, needspinning, spinning>>
    /\ UNCHANGED <<queue, taken, submitted, spc, npidle, pending, midle, hasP, wpc>>

\* A spinning M looks again (steals).
Steal(m) ==
    /\ pc[m] = "steal"
    /\ IF queue > 0
         THEN /\ queue' = queue - 1 /\ taken' = taken + 1
              /\ pc' = Set(pc, m, "found")
         ELSE /\ pc' = Set(pc, m, "release")
              /\ UNCHANGED <<queue, taken>>
    /\ UNCHANGED <<submitted, spc, nmspinning, npidle, needspinning, pending,
                   midle, spinning, hasP, wpc>>

\* ResetSpinning: leave the spinning state (one step: the flag is the M's
\* own), then Wakep, which starts another spinner if this was the last.
ResetSpinningDec(m) ==
    /\ pc[m] = "found"
    /\ IF spinning[m]
         THEN /\ spinning' = Set(spinning, m, FALSE)
              /\ nmspinning' = IF Mutant = "CountLeak" THEN nmspinning ELSE nmspinning - 1
              /\ IF Mutant = "NoWakeOnLastSpinner"
                   THEN /\ pc' = Set(pc, m, "run")
                        /\ UNCHANGED wpc
                   ELSE /\ pc' = Set(pc, m, "reset")
                        /\ wpc' = Set(wpc, m, "cas")
         ELSE /\ pc' = Set(pc, m, "run")
              /\ UNCHANGED <<spinning, nmspinning, wpc>>
    /\ UNCHANGED <<queue, taken, submitted, spc, npidle, needspinning, pending, midle, hasP>>

ResetSpinningWakep(m) ==
    /\ pc[m] = "reset"
    /\ IF wpc[m] # "none"
         THEN Wakep(m)
         ELSE /\ pc' = Set(pc, m, "run")
              /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle,
                             needspinning, pending, midle, spinning, hasP, wpc>>

ResetSpinning(m) == ResetSpinningDec(m) \/ ResetSpinningWakep(m)

\* The task ends. Not fair: a task may run forever.
Finish(m) ==
    /\ pc[m] = "run"
    /\ pc' = Set(pc, m, "look")
    /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, hasP, wpc>>

\* ReleaseP: under the lock, a non-spinning M answers needspinning by
\* spinning; otherwise the P becomes idle.
ReleaseP(m) ==
    /\ pc[m] = "release"
    /\ IF ~spinning[m] /\ needspinning /\ Mutant # "NoNeedSpinning"
         THEN /\ spinning' = Set(spinning, m, TRUE)
              /\ nmspinning' = nmspinning + 1
              /\ needspinning' = FALSE
              /\ pc' = Set(pc, m, "look")
              /\ UNCHANGED <<npidle, hasP>>
         ELSE /\ npidle' = npidle + 1
              /\ hasP' = Set(hasP, m, FALSE)
              /\ pc' = Set(pc, m, "drop")
              /\ UNCHANGED <<spinning, nmspinning, needspinning>>
    /\ UNCHANGED <<queue, taken, submitted, spc, pending, midle, wpc>>

\* DropSpinning: decrement nmspinning; then look at the queue; on work,
\* under the lock take an idle P and spin again, or set needspinning.
DropDec(m) ==
    /\ pc[m] = "drop"
    /\ IF spinning[m]
         THEN /\ spinning' = Set(spinning, m, FALSE)
              /\ nmspinning' = nmspinning - 1
              /\ pc' = Set(pc, m, IF Mutant = "DropWithoutRecheck" THEN "stop" ELSE "recheck")
         ELSE /\ pc' = Set(pc, m, "stop")
              /\ UNCHANGED <<spinning, nmspinning>>
    /\ UNCHANGED <<queue, taken, submitted, spc, npidle, needspinning, pending,
                   midle, hasP, wpc>>

DropRecheck(m) ==
    /\ pc[m] = "recheck"
    /\ pc' = Set(pc, m, IF queue > 0 THEN "recheckp" ELSE "stop")
    /\ UNCHANGED <<queue, taken, submitted, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, hasP, wpc>>

DropGetP(m) ==
    /\ pc[m] = "recheckp"
    /\ IF npidle > 0
         THEN /\ npidle' = npidle - 1
              /\ hasP' = Set(hasP, m, TRUE)
              /\ spinning' = Set(spinning, m, TRUE)
              /\ nmspinning' = nmspinning + 1
              /\ needspinning' = FALSE
              /\ pc' = Set(pc, m, "look")
         ELSE /\ needspinning' = TRUE
              /\ pc' = Set(pc, m, "stop")
              /\ UNCHANGED <<npidle, hasP, spinning, nmspinning>>
    /\ UNCHANGED <<queue, taken, submitted, spc, pending, midle, wpc>>

DropSpinning(m) == DropDec(m) \/ DropRecheck(m) \/ DropGetP(m)

\* Every step of M m but Finish; these are weakly fair.
MStep(m) ==
    \/ StopM(m) \/ Look(m) \/ BecomeSpinning(m) \/ Steal(m)
    \/ ResetSpinning(m) \/ ReleaseP(m) \/ DropSpinning(m)

Next ==
    \/ Submit
    \/ \E m \in Ms : MStep(m) \/ Finish(m)

Spec ==
    /\ Init /\ [][Next]_vars
    /\ WF_vars(Submit)
    /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
(* Safety.                                                                 *)

TypeOK ==
    /\ queue \in 0..NTasks /\ taken \in 0..NTasks /\ submitted \in 0..NTasks
    /\ spc \in SPCs
    /\ nmspinning \in Nat /\ npidle \in 0..Procs /\ needspinning \in BOOLEAN
    /\ pending \in 0..Procs
    /\ midle \subseteq Ms
    /\ pc \in [Ms -> MPCs] /\ spinning \in [Ms -> BOOLEAN] /\ hasP \in [Ms -> BOOLEAN]
    /\ wpc \in [Actors -> WPCs]

\* 0 <= nmspinning <= Procs for every count backed by a P (a spinning M
\* that holds one, a woken M, a waiting handoff, a Wakep that took one).
\* Two kinds of count hold no P: a spinning M between ReleaseP and its
\* decrement, and a Wakep between its CAS and taking a P; there is at most
\* one of the latter (its CAS succeeds only from 0), and nmspinning exceeds
\* Procs by no more than these. The plain bound nmspinning <= Procs does not
\* hold, here or in the runtime: see README.md (NMSpinningAtMostProcs).
Unbacked == Cardinality({m \in Ms : spinning[m] /\ ~hasP[m]})
            + Cardinality({a \in Actors : wpc[a] = "getp"})

SpinningBounds ==
    /\ 0 <= nmspinning
    /\ Cardinality({m \in Ms : spinning[m] /\ hasP[m]})
         + Cardinality({m \in Ms : pc[m] = "woken"}) + pending
         + Cardinality({a \in Actors : wpc[a] = "startm"}) <= Procs
    /\ Cardinality({a \in Actors : wpc[a] = "getp"}) <= 1
    /\ nmspinning <= Procs + Unbacked

\* The bound as the runtime's comments suggest it; TLC refutes it (a one-off
\* check, not in any cfg).
NMSpinningAtMostProcs == nmspinning <= Procs

\* An M is spinning iff it is counted: nmspinning is exactly the spinning
\* Ms, the woken Ms (handed a P to spin), the waiting handoffs, and the
\* Wakeps that hold the count of their CAS.
SpinningCounted ==
    nmspinning = Cardinality({m \in Ms : spinning[m] \/ pc[m] = "woken"})
                 + pending
                 + Cardinality({a \in Actors : wpc[a] \in {"getp", "startm"}})

\* Every P is in exactly one place.
PConservation ==
    Procs = npidle + Cardinality({m \in Ms : hasP[m]})
                   + Cardinality({m \in Ms : pc[m] = "woken"})
                   + pending
                   + Cardinality({a \in Actors : wpc[a] = "startm"})

\* The idle list holds exactly the parked Ms, which hold no P and do not spin.
IdleMs ==
    /\ \A m \in Ms : (m \in midle) <=> (pc[m] = "park")
    /\ \A m \in midle : ~hasP[m] /\ ~spinning[m]
    /\ \A m \in Ms : spinning[m] => pc[m] \notin {"stop", "park", "woken", "recheck", "recheckp"}

\* Every task submitted is queued or was taken exactly once.
TaskConservation == queue + taken = submitted

---------------------------------------------------------------------------
(* Liveness: no lost wakeup. A queued task and an idle P (idle, or in a    *)
(* handoff that waits for an M) never coexist forever: eventually the      *)
(* queue is empty or every P is busy. With tasks that may run forever,     *)
(* this is the form of "while a task is queued and a P is idle, some M     *)
(* eventually runs it" that holds: the task may also wait because every P  *)
(* runs something that never ends.                                         *)

IdlePs == npidle + pending

WorkConserving == (queue > 0 /\ IdlePs > 0) ~> (queue = 0 \/ IdlePs = 0)
=============================================================================
