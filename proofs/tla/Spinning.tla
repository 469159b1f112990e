------------------------------ MODULE Spinning ------------------------------
(***************************************************************************)
(* spinning.Sched: spinning-M accounting and parking with no lost wakeup,  *)
(* after "Worker thread parking/unparking" in the runtime's proc.go        *)
(* (wakep, startm, resetspinning, findRunnable's spinning rule and its     *)
(* drop-and-recheck, checkRunqsNoP, pidlegetSpinning's needspinning,       *)
(* handoffp, exitsyscall's pidleget and exitsyscallNoP, stopm). Several    *)
(* submitters publish tasks to one global queue, each calling Wakep after  *)
(* each task; Ms run the executor's loop of spinning/doc.go, and a running *)
(* task may make a blocking call: its M hands its P off (HandoffP), blocks *)
(* without a P, and on return takes an idle P (AcquireP) or puts the task  *)
(* back (Submit) and parks.                                                *)
(*                                                                         *)
(* Each Go operation is the TLA+ action of the same name, the disjunction  *)
(* of its steps, chosen by a program counter: pc[m] for an M, spc[s] for a *)
(* submitter, and wpc[a] for a Wakep in progress (by a submitter, by an M  *)
(* inside ResetSpinning, or by an M putting its task back). Every atomic   *)
(* access that another process can race with is its own step: each load,  *)
(* store, add or CAS of nmspinning, npidle or needspinning outside the     *)
(* lock, each look at the queue, and each critical section under the lock *)
(* (Wakep's, when it finds no idle P, is two: lock-free steps of other Ms  *)
(* can fall between its two writes).                                      *)
(*                                                                         *)
(* A running task may run forever and a blocking call may never return:  *)
(* Finish and Unblock have no fairness in Spec. That is what makes a       *)
(* missing wakeup observable (WorkConserving) even when the M that holds   *)
(* the work would get to it once its task ends. AllTasksDone assumes their *)
(* fairness in its antecedent (TasksEnd), so one Spec checks both.         *)
(*                                                                         *)
(* Ps are interchangeable, so they are counted, not named: npidle idle Ps, *)
(* Ps held by Ms (HasP, by pc), and Ps in flight (handed to a woken M, in  *)
(* a waiting handoff, or held by a Wakep between taking and handing it).   *)
(* The idle M list and the waiting handoffs are stacks, as in the Go code: *)
(* StartM wakes the M that parked last, StopM takes the handoff left last. *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Sequences

CONSTANTS
    Ms,       \* the Ms (model values)
    Procs,    \* the number of Ps
    Subs,     \* the submitters (model values, not Ms)
    NTasks,   \* tasks the submitters submit in all, shared out evenly
    NBlocks,  \* blocking calls the tasks make, in all
    Mutant,   \* "none" is the real algorithm; any other name breaks one step
    KeepAlive \* Config.KeepAlive > 0: an idle M beyond the Ps may exit (Expire)

\* The broken variants. All but EndlessTasks are the Go mutation
\* (spinning/mutation.go) of the same name:
\*   DropWithoutRecheck     DropSpinning parks without re-checking the queue
\*   WakepBeforePublish     Submit calls Wakep before it publishes
\*   NoWakeOnLastSpinner    ResetSpinning does not call Wakep
\*   CountLeak              ResetSpinning does not decrement nmspinning
\*   NoNeedSpinning         ReleaseP ignores needspinning
\*   DropNoNeedSpinning     DropSpinning's re-check finds work and no idle P
\*                          and does not set needspinning
\*   HandoffNoNeedSpinning  HandoffP idles the P without reading needspinning
\*   NeedBeforeDec          Wakep, finding no idle P, sets needspinning before
\*                          it gives its count back (the runtime's order)
\*   EndlessTasks           (the spec only) a task never ends: every P can be
\*                          busy forever, which WorkConserving cannot see
\*   ExitIgnoresWake        (KeepAlive) Expire exits without looking whether
\*                          a StartM popped the M meanwhile: its P is lost
Mutants == {"none", "DropWithoutRecheck", "WakepBeforePublish",
            "NoWakeOnLastSpinner", "CountLeak", "NoNeedSpinning",
            "DropNoNeedSpinning", "HandoffNoNeedSpinning", "NeedBeforeDec",
            "EndlessTasks", "ExitIgnoresWake"}

ASSUME /\ Ms # {} /\ Subs # {} /\ Ms \cap Subs = {}
       /\ Procs \in Nat /\ Procs >= 1
       /\ NTasks \in Nat /\ NTasks >= 1
       /\ NBlocks \in Nat
       \* Enough Ms that a P never waits for one while others block: the
       \* executor starts an M on Config.NeedM instead.
       /\ Cardinality(Ms) >= Procs + NBlocks
       /\ Mutant \in Mutants
       /\ KeepAlive \in BOOLEAN

Actors == Ms \cup Subs
NTotal == NTasks
WBP == Mutant = "WakepBeforePublish"

VARIABLES
    queue,        \* tasks in the global queue
    done,         \* tasks that ran to their end
    submitted,    \* tasks the submitters published
    left,         \* tasks each submitter has still to publish
    spc,          \* each submitter's program counter
    nmspinning,   \* sched.nmspinning
    npidle,       \* idle Ps: sched.npidle, the size of the idle set
    needspinning, \* sched.needspinning
    pending,      \* waiting handoffs (startm found no idle M), a stack:
                  \* TRUE for one whose M is to spin
    midle,        \* the idle M list, a stack
    pc,           \* each M's place
    spinning,     \* m.spinning
    seen,         \* nmspinning as the spinning rule's first load saw it
    budget,       \* blocking calls left
    wpc,          \* each actor's Wakep in progress
    exited,       \* the Ms that left after their keep-alive (not in allm)
    timed         \* m.timed: parked beyond the Ps with a keep-alive

vars == <<queue, done, submitted, left, spc, nmspinning, npidle, needspinning,
          pending, midle, pc, spinning, seen, budget, wpc, exited, timed>>

\* An M's places. Those marked P hold a P; those marked T hold a task.
MPCs == {"park",     \*      asleep in StopM, on midle
         "woken",    \*      StartM handed it a P to spin, and woke it
         "wokenn",   \*      StartM handed it a P not to spin, and woke it
         "look",     \* P    look at the queue (local and global work)
         "rule",     \* P    BecomeSpinning: load nmspinning
         "rule2",    \* P    BecomeSpinning: load npidle, decide
         "spininc",  \* P    BecomeSpinning: set the flag, add 1
         "spinclr",  \* P    BecomeSpinning: clear needspinning
         "steal",    \* P    spinning: look again (steal)
         "found",    \* P T  a spinning M took a task: ResetSpinning
         "reset",    \* P T  inside ResetSpinning's Wakep (wpc[m])
         "run",      \* P T  running the task
         "hwork",    \* P T  HandoffP: Config.Work
         "hload",    \* P T  HandoffP: load nmspinning
         "hload2",   \* P T  HandoffP: load npidle
         "hcas",     \* P T  HandoffP: CAS nmspinning 0 -> 1
         "hclr",     \* P T  HandoffP: clear needspinning
         "hlock",    \* P T  HandoffP: under the lock, needspinning or idle
         "hstartn",  \* P T  HandoffP: startm(p, false)
         "hstarts",  \* P T  HandoffP: startm(p, true)
         "blocked",  \*   T  in the blocking call, no P
         "acquire",  \*   T  back from it: AcquireP
         "rqpub",    \*   T  AcquireP failed: Submit's publish of the task
         "rqwake",   \*      Submit's Wakep (wpc[m])
         "release",  \* P    ReleaseP
         "drop",     \*      DropSpinning: clear the flag, subtract 1
         "recheck",  \*      DropSpinning: look at the queue
         "recheckp", \*      DropSpinning: found work, take an idle P
         "dropinc",  \* P    DropSpinning: set the flag, add 1
         "dropclr",  \* P    DropSpinning: clear needspinning
         "stop",     \*      StopM: take a handoff or park
         "exited"}   \*      left the Sched after its keep-alive (Expire)
HoldPCs == {"look", "rule", "rule2", "spininc", "spinclr", "steal", "found",
            "reset", "run", "hwork", "hload", "hload2", "hcas", "hclr",
            "hlock", "hstartn", "hstarts", "release", "dropinc", "dropclr"}
HandoffPCs == {"hwork", "hload", "hload2", "hcas", "hclr", "hlock",
               "hstartn", "hstarts"}
TaskPCs == {"found", "reset", "run", "blocked", "acquire", "rqpub"} \cup HandoffPCs
           \cup (IF WBP THEN {"rqwake"} ELSE {})
\* The only places where an M may be spinning.
SpinPCs == {"look", "steal", "found", "release", "drop", "spinclr", "dropclr"}
WPCs == {"none", "cas", "getp", "need", "startm"}
SPCs == {"publish", "wakep", "end"}

Set(f, x, v) == [f EXCEPT ![x] = v]
Range(q) == {q[i] : i \in DOMAIN q}
Top(q) == q[Len(q)]
Pop(q) == SubSeq(q, 1, Len(q) - 1)

\* The submitters in some fixed order, and the tasks each submits: NTasks
\* shared out as evenly as possible, the first ones taking the remainder.
SubOrder == CHOOSE q \in [1..Cardinality(Subs) -> Subs] : Range(q) = Subs
Share == [s \in Subs |->
            LET i == CHOOSE j \in 1..Cardinality(Subs) : SubOrder[j] = s
            IN  NTasks \div Cardinality(Subs)
                + (IF i <= NTasks % Cardinality(Subs) THEN 1 ELSE 0)]

HasP(m) == pc[m] \in HoldPCs
HasTask(m) == pc[m] \in TaskPCs

\* No Wakep is inside its two-step critical section (WakepGetP, WakepNeed):
\* every other step under the scheduler lock waits for this.
LockFree == \A a \in Actors : wpc[a] # "need"

Init ==
    /\ queue = 0 /\ done = 0 /\ submitted = 0
    /\ left = Share
    /\ spc = [s \in Subs |-> IF Share[s] = 0 THEN "end" ELSE IF WBP THEN "wakep" ELSE "publish"]
    /\ nmspinning = 0 /\ npidle = Procs /\ needspinning = FALSE
    /\ pending = <<>>
    /\ midle = CHOOSE q \in [1..Cardinality(Ms) -> Ms] : Range(q) = Ms
    /\ pc = [m \in Ms |-> "park"]
    /\ spinning = [m \in Ms |-> FALSE]
    /\ seen = [m \in Ms |-> 0]
    /\ budget = NBlocks
    /\ wpc = [a \in Actors |-> IF a \in Subs /\ WBP /\ Share[a] > 0 THEN "cas" ELSE "none"]
    \* Each M parked by its first StopM with every M alive: timed if beyond the Ps.
    /\ exited = {} /\ timed = [m \in Ms |-> KeepAlive /\ Cardinality(Ms) > Procs]


---------------------------------------------------------------------------
(* Wakep(a): the CAS of nmspinning from 0 to 1 (the Go code's load before *)
(* it is folded in: a load that sees non-zero returns as a failed CAS      *)
(* does); under the lock, take an idle P (or set needspinning and give the *)
(* count back); StartM. When it is over, its caller goes on to the place   *)
(* ContPc and ContSpc give.                                                *)

\* Where actor a goes when its Wakep is over.
SubCont(s) == IF WBP \/ left[s] > 0 THEN "publish" ELSE "end"
MCont(m) == CASE pc[m] = "reset" -> "run"
            []   pc[m] = "rqwake" -> IF WBP THEN "rqpub" ELSE "stop"
ContPc(a) == IF a \in Ms THEN Set(pc, a, MCont(a)) ELSE pc
ContSpc(a) == IF a \in Subs THEN Set(spc, a, SubCont(a)) ELSE spc

\* startm(p, spin), with the P in hand: hand it to an idle M and wake it
\* (pc "woken" or "wokenn"), or leave a waiting handoff for the next StopM.
\* pc1 is pc with the caller's own move already made.
StartMWith(spin, pc1) ==
    IF midle # <<>>
      THEN /\ midle' = Pop(midle)
           /\ pc' = [pc1 EXCEPT ![Top(midle)] = IF spin THEN "woken" ELSE "wokenn"]
           /\ UNCHANGED pending
      ELSE /\ pending' = Append(pending, spin)
           /\ pc' = pc1
           /\ UNCHANGED midle

WakepCAS(a) ==
    /\ wpc[a] = "cas"
    /\ IF nmspinning = 0
         THEN /\ nmspinning' = 1
              /\ wpc' = Set(wpc, a, "getp")
              /\ UNCHANGED <<pc, spc>>
         ELSE /\ wpc' = Set(wpc, a, "none")
              /\ pc' = ContPc(a) /\ spc' = ContSpc(a)
              /\ UNCHANGED nmspinning
    /\ UNCHANGED <<queue, done, submitted, left, npidle, needspinning,
                   pending, midle, spinning, seen, budget>>

\* Under the lock: take an idle P; with none, the critical section goes on
\* in two steps (WakepNeed), each a write that lock-free steps of other Ms
\* (becomeSpinning's clear of needspinning, loads and CASes of nmspinning)
\* may fall between: give the count back, then set needspinning (the Go
\* code's order; NeedBeforeDec, the runtime's, is the other way round).
\* While a Wakep is between the two ("need"), it holds the lock: no other
\* critical section runs (LockFree).
WakepGetP(a) ==
    /\ wpc[a] = "getp"
    /\ LockFree
    /\ IF npidle > 0
         THEN /\ npidle' = npidle - 1
              /\ wpc' = Set(wpc, a, "startm")
              /\ UNCHANGED <<nmspinning, needspinning>>
         ELSE /\ IF Mutant = "NeedBeforeDec"
                   THEN /\ needspinning' = TRUE
                        /\ UNCHANGED nmspinning
                   ELSE /\ nmspinning' = nmspinning - 1
                        /\ UNCHANGED needspinning
              /\ wpc' = Set(wpc, a, "need")
              /\ UNCHANGED npidle
    /\ UNCHANGED <<queue, done, submitted, left, pending, midle, pc, spc,
                   spinning, seen, budget>>

WakepNeed(a) ==
    /\ wpc[a] = "need"
    /\ IF Mutant = "NeedBeforeDec"
         THEN /\ nmspinning' = nmspinning - 1
              /\ UNCHANGED needspinning
         ELSE /\ needspinning' = TRUE            \* pidlegetSpinning
              /\ UNCHANGED nmspinning
    /\ wpc' = Set(wpc, a, "none")
    /\ pc' = ContPc(a) /\ spc' = ContSpc(a)
    /\ UNCHANGED <<queue, done, submitted, left, npidle, pending, midle,
                   spinning, seen, budget>>

StartM(a) ==
    /\ wpc[a] = "startm"
    /\ LockFree
    /\ StartMWith(TRUE, ContPc(a))
    /\ spc' = ContSpc(a)
    /\ wpc' = Set(wpc, a, "none")
    /\ UNCHANGED <<queue, done, submitted, left, nmspinning, npidle,
                   needspinning, spinning, seen, budget>>

Wakep(a) == WakepCAS(a) \/ WakepGetP(a) \/ WakepNeed(a) \/ StartM(a)

---------------------------------------------------------------------------
(* Submit(s): publish, then Wakep (WakepBeforePublish: the other way).     *)

Publish(s) ==
    /\ spc[s] = "publish"
    /\ queue' = queue + 1
    /\ submitted' = submitted + 1
    /\ left' = Set(left, s, left[s] - 1)
    /\ IF WBP /\ left[s] = 1
         THEN /\ spc' = Set(spc, s, "end")   \* its Wakep came first
              /\ UNCHANGED wpc
         ELSE /\ spc' = Set(spc, s, "wakep")
              /\ wpc' = Set(wpc, s, "cas")
    /\ UNCHANGED <<done, nmspinning, npidle, needspinning, pending, midle,
                   pc, spinning, seen, budget>>

SubmitWakep(s) == spc[s] = "wakep" /\ Wakep(s)

Submit(s) == (Publish(s) \/ SubmitWakep(s)) /\ UNCHANGED <<exited, timed>>

---------------------------------------------------------------------------
(* An M: the executor's steps (Look, Steal, Finish, Block) around the      *)
(* operations of spinning.M. Each step changes the M's own pc; Go(m, v)    *)
(* is that change.                                                         *)

Go(m, v) == pc' = Set(pc, m, v)

\* StopM: take a waiting handoff, or park on the idle list (mput); later,
\* once StartM woke it, resume with the P it was handed.
StopMPark(m) ==
    /\ pc[m] = "stop"
    /\ LockFree
    /\ IF pending # <<>>
         THEN /\ pending' = Pop(pending)
              /\ spinning' = Set(spinning, m, Top(pending))
              /\ Go(m, "look")
              /\ UNCHANGED midle
         ELSE /\ midle' = Append(midle, m)
              /\ Go(m, "park")
              /\ UNCHANGED <<pending, spinning>>
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, seen, budget, wpc>>

StopMResume(m) ==
    /\ pc[m] \in {"woken", "wokenn"}
    /\ spinning' = Set(spinning, m, pc[m] = "woken") \* mspinning: counted by the starter
    /\ Go(m, "look")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, seen, budget, wpc>>

StopM(m) == StopMPark(m) \/ StopMResume(m)

\* The executor's first look: local and global work. A spinning M that
\* finds a task leaves the spinning state (ResetSpinning) before it runs it.
Look(m) ==
    /\ pc[m] = "look"
    /\ IF queue > 0
         THEN /\ queue' = queue - 1
              /\ Go(m, IF spinning[m] THEN "found" ELSE "run")
         ELSE /\ Go(m, IF spinning[m] THEN "steal" ELSE "rule")
              /\ UNCHANGED queue
    /\ UNCHANGED <<done, submitted, left, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, seen, budget, wpc>>

\* findRunnable's rule, at the Go code's grain: load nmspinning; load
\* npidle and decide 2*nmspinning < Procs - npidle; then becomeSpinning:
\* set the flag and add 1; clear needspinning.
RuleLoadN(m) ==
    /\ pc[m] = "rule"
    \* Only whether 2*nmspinning < Procs - npidle can hold matters: a
    \* count of Procs/2 or more is kept as Procs (fewer states).
    /\ seen' = Set(seen, m, IF 2 * nmspinning >= Procs THEN Procs ELSE nmspinning)
    /\ Go(m, "rule2")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, budget, wpc>>

RuleDecide(m) ==
    /\ pc[m] = "rule2"
    /\ Go(m, IF 2 * seen[m] < Procs - npidle THEN "spininc" ELSE "release")
    /\ seen' = Set(seen, m, 0)
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, budget, wpc>>

SpinInc(m) ==
    /\ pc[m] = "spininc"
    /\ spinning' = Set(spinning, m, TRUE)
    /\ nmspinning' = nmspinning + 1
    /\ Go(m, "spinclr")
    /\ UNCHANGED <<queue, done, submitted, left, spc, npidle, needspinning,
                   pending, midle, seen, budget, wpc>>

SpinClear(m) ==
    /\ pc[m] = "spinclr"
    /\ needspinning' = FALSE
    /\ Go(m, "steal")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   pending, midle, spinning, seen, budget, wpc>>

BecomeSpinning(m) == RuleLoadN(m) \/ RuleDecide(m) \/ SpinInc(m) \/ SpinClear(m)

\* A spinning M looks again (steals).
Steal(m) ==
    /\ pc[m] = "steal"
    /\ IF queue > 0
         THEN /\ queue' = queue - 1
              /\ Go(m, "found")
         ELSE /\ Go(m, "release")
              /\ UNCHANGED queue
    /\ UNCHANGED <<done, submitted, left, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, seen, budget, wpc>>

\* ResetSpinning: clear the flag and subtract 1 (the flag is the M's own),
\* then Wakep, which starts another spinner if this was the last.
ResetSpinningDec(m) ==
    /\ pc[m] = "found"
    /\ spinning' = Set(spinning, m, FALSE)
    /\ nmspinning' = IF Mutant = "CountLeak" THEN nmspinning ELSE nmspinning - 1
    /\ IF Mutant = "NoWakeOnLastSpinner"
         THEN /\ Go(m, "run")
              /\ UNCHANGED wpc
         ELSE /\ Go(m, "reset")
              /\ wpc' = Set(wpc, m, "cas")
    /\ UNCHANGED <<queue, done, submitted, left, spc, npidle, needspinning,
                   pending, midle, seen, budget>>

ResetSpinningWakep(m) == pc[m] = "reset" /\ Wakep(m)

ResetSpinning(m) == ResetSpinningDec(m) \/ ResetSpinningWakep(m)

\* The task ends. Not fair in Spec: a task may run forever.
Finish(m) ==
    /\ pc[m] = "run"
    /\ Mutant # "EndlessTasks"
    /\ done' = done + 1
    /\ Go(m, "look")
    /\ UNCHANGED <<queue, submitted, left, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, seen, budget, wpc, exited, timed>>

\* The task makes a blocking call (at most NBlocks in all). Not fair: a
\* task need not block. Its M hands the P off first (HandoffP).
Block(m) ==
    /\ pc[m] = "run"
    /\ budget > 0
    /\ budget' = budget - 1
    /\ Go(m, "hwork")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, seen, wpc, exited,
                   timed>>

\* ReleaseP: under the lock, a non-spinning M answers needspinning by
\* spinning (and looks again); otherwise the P becomes idle, and a
\* spinning M goes on to drop, a non-spinning one to StopM.
ReleaseP(m) ==
    /\ pc[m] = "release"
    /\ LockFree
    /\ IF ~spinning[m] /\ needspinning /\ Mutant # "NoNeedSpinning"
         THEN /\ spinning' = Set(spinning, m, TRUE)
              /\ nmspinning' = nmspinning + 1
              /\ needspinning' = FALSE
              /\ Go(m, "look")
              /\ UNCHANGED npidle
         ELSE /\ npidle' = npidle + 1
              /\ Go(m, IF spinning[m] THEN "drop" ELSE "stop")
              /\ UNCHANGED <<spinning, nmspinning, needspinning>>
    /\ UNCHANGED <<queue, done, submitted, left, spc, pending, midle,
                   seen, budget, wpc>>

\* DropSpinning: clear the flag and subtract 1; look at the queue; on work,
\* under the lock take an idle P (or set needspinning); then, outside the
\* lock, set the flag and add 1; clear needspinning.
DropDec(m) ==
    /\ pc[m] = "drop"
    /\ spinning' = Set(spinning, m, FALSE)
    /\ nmspinning' = nmspinning - 1
    /\ Go(m, IF Mutant = "DropWithoutRecheck" THEN "stop" ELSE "recheck")
    /\ UNCHANGED <<queue, done, submitted, left, spc, npidle, needspinning,
                   pending, midle, seen, budget, wpc>>

DropRecheck(m) ==
    /\ pc[m] = "recheck"
    /\ Go(m, IF queue > 0 THEN "recheckp" ELSE "stop")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, seen, budget, wpc>>

DropGetP(m) ==
    /\ pc[m] = "recheckp"
    /\ LockFree
    /\ IF npidle > 0
         THEN /\ npidle' = npidle - 1
              /\ Go(m, "dropinc")
              /\ UNCHANGED needspinning
         ELSE /\ needspinning' = IF Mutant = "DropNoNeedSpinning"
                                 THEN needspinning ELSE TRUE
              /\ Go(m, "stop")
              /\ UNCHANGED npidle
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, pending,
                   midle, spinning, seen, budget, wpc>>

DropInc(m) ==
    /\ pc[m] = "dropinc"
    /\ spinning' = Set(spinning, m, TRUE)
    /\ nmspinning' = nmspinning + 1
    /\ Go(m, "dropclr")
    /\ UNCHANGED <<queue, done, submitted, left, spc, npidle, needspinning,
                   pending, midle, seen, budget, wpc>>

DropClear(m) ==
    /\ pc[m] = "dropclr"
    /\ needspinning' = FALSE
    /\ Go(m, "look")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   pending, midle, spinning, seen, budget, wpc>>

DropSpinning(m) ==
    DropDec(m) \/ DropRecheck(m) \/ DropGetP(m) \/ DropInc(m) \/ DropClear(m)

\* HandoffP, at the Go code's grain: Config.Work (work: startm(p, false));
\* load nmspinning, load npidle, and if both were 0 CAS nmspinning 0 -> 1,
\* clear needspinning and startm(p, true); otherwise, under the lock, if
\* needspinning is set, clear it, add 1 and startm(p, true), else the P
\* becomes idle. The M holds the P until it is placed; then it blocks.
UH == <<queue, done, submitted, left, spc, pending, midle, spinning,
        seen, budget, wpc>>

HandoffWork(m) ==
    /\ pc[m] = "hwork"
    /\ Go(m, IF queue > 0 THEN "hstartn" ELSE "hload")
    /\ UNCHANGED <<nmspinning, npidle, needspinning>> /\ UNCHANGED UH

HandoffLoadN(m) ==
    /\ pc[m] = "hload"
    /\ Go(m, IF nmspinning # 0 THEN "hlock" ELSE "hload2")
    /\ UNCHANGED <<nmspinning, npidle, needspinning>> /\ UNCHANGED UH

HandoffLoadIdle(m) ==
    /\ pc[m] = "hload2"
    /\ Go(m, IF npidle # 0 THEN "hlock" ELSE "hcas")
    /\ UNCHANGED <<nmspinning, npidle, needspinning>> /\ UNCHANGED UH

HandoffCAS(m) ==
    /\ pc[m] = "hcas"
    /\ IF nmspinning = 0
         THEN /\ nmspinning' = 1
              /\ Go(m, "hclr")
         ELSE /\ Go(m, "hlock")
              /\ UNCHANGED nmspinning
    /\ UNCHANGED <<npidle, needspinning>> /\ UNCHANGED UH

HandoffClear(m) ==
    /\ pc[m] = "hclr"
    /\ needspinning' = FALSE
    /\ Go(m, "hstarts")
    /\ UNCHANGED <<nmspinning, npidle>> /\ UNCHANGED UH

HandoffLock(m) ==
    /\ pc[m] = "hlock"
    /\ LockFree
    /\ IF needspinning /\ Mutant # "HandoffNoNeedSpinning"
         THEN /\ needspinning' = FALSE
              /\ nmspinning' = nmspinning + 1
              /\ Go(m, "hstarts")
              /\ UNCHANGED npidle
         ELSE /\ npidle' = npidle + 1
              /\ Go(m, "blocked")
              /\ UNCHANGED <<nmspinning, needspinning>>
    /\ UNCHANGED UH

HandoffStartM(m) ==
    /\ pc[m] \in {"hstartn", "hstarts"}
    /\ LockFree
    /\ StartMWith(pc[m] = "hstarts", Set(pc, m, "blocked"))
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, spinning, seen, budget, wpc>>

HandoffP(m) ==
    \/ HandoffWork(m) \/ HandoffLoadN(m) \/ HandoffLoadIdle(m)
    \/ HandoffCAS(m) \/ HandoffClear(m) \/ HandoffLock(m) \/ HandoffStartM(m)

\* The blocking call returns. Not fair in Spec: a call may block forever
\* (on something a queued task would do, say).
Unblock(m) ==
    /\ pc[m] = "blocked"
    /\ Go(m, "acquire")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, seen, budget, wpc,
                   exited, timed>>

\* Back from the call, the M takes an idle P under the lock and goes on
\* with its task, as exitsyscall's pidleget. With none idle, the executor
\* puts the task back with Submit (exitsyscallNoP's globrunqput) and parks.
AcquireP(m) ==
    /\ pc[m] = "acquire"
    /\ LockFree
    /\ IF npidle > 0
         THEN /\ npidle' = npidle - 1
              /\ Go(m, "run")
              /\ UNCHANGED wpc
         ELSE /\ Go(m, IF WBP THEN "rqwake" ELSE "rqpub")
              /\ wpc' = IF WBP THEN Set(wpc, m, "cas") ELSE wpc
              /\ UNCHANGED npidle
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, needspinning,
                   pending, midle, spinning, seen, budget>>

\* The executor's Submit of the task it could not run: publish, then Wakep
\* (WakepBeforePublish: the other way round).
Requeue(m) ==
    /\ pc[m] = "rqpub"
    /\ queue' = queue + 1
    /\ IF WBP
         THEN /\ Go(m, "stop") /\ UNCHANGED wpc
         ELSE /\ Go(m, "rqwake") /\ wpc' = Set(wpc, m, "cas")
    /\ UNCHANGED <<done, submitted, left, spc, nmspinning, npidle, needspinning,
                   pending, midle, spinning, seen, budget>>

RequeueWakep(m) == pc[m] = "rqwake" /\ Wakep(m)

---------------------------------------------------------------------------
(* Config.KeepAlive (KeepAlive): an M that parks while more Ms are alive  *)
(* than there are Ps (len(allm) > procs) is timed: it sleeps at most the  *)
(* keep-alive, then looks under the lock (Expire, M.expire): still on     *)
(* the idle list and still more Ms than Ps, it leaves the list and the    *)
(* Sched (exited); popped by a StartM meanwhile (pc "woken"/"wokenn"), it  *)
(* keeps the P it was handed. So at least Procs Ms stay, and a handoff    *)
(* that finds no idle M gets one from Config.NeedM (NewM: an exited M     *)
(* comes back as a new one and takes it in StopM). The actions below the *)
(* other steps leave exited and timed alone, except that an M's own step  *)
(* sets timed when it parks and clears it otherwise (KAMove; Finish,     *)
(* Block and Unblock never find it set).                                  *)
(* The runtime never ends an idle M: this is the Go code's own addition.  *)

Alive == Cardinality(Ms) - Cardinality(exited)

\* timed' and exited' for a step of M m's own (not Expire or NewM): stopBegin
\* sets m.timed when it parks the M beyond the Ps.
KAMove(m) ==
    /\ timed' = Set(timed, m, KeepAlive /\ pc'[m] = "park" /\ Alive > Procs)
    /\ UNCHANGED exited

\* expire: under the lock (mget's lock, so exactly one of Expire and a
\* StartM's pop takes a parked M off the list). ExitIgnoresWake: a popped M
\* exits too, with the P it was handed.
Expire(m) ==
    /\ timed[m]
    /\ pc[m] \in {"park", "woken", "wokenn"}
    /\ LockFree
    /\ timed' = Set(timed, m, FALSE)
    /\ IF Alive > Procs /\ (pc[m] = "park" \/ Mutant = "ExitIgnoresWake")
         THEN /\ exited' = exited \cup {m}
              /\ midle' = SelectSeq(midle, LAMBDA x : x # m)   \* unlinkIdle
              /\ Go(m, "exited")
         ELSE UNCHANGED <<exited, midle, pc>>
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, spinning, seen, budget, wpc>>

\* Config.NeedM, called by a StartM that left a handoff for want of an idle
\* M: the executor starts a new M (NewM), which goes to StopM and takes it.
NewM(m) ==
    /\ m \in exited
    /\ pending # <<>>
    /\ exited' = exited \ {m}
    /\ Go(m, "stop")
    /\ UNCHANGED <<queue, done, submitted, left, spc, nmspinning, npidle,
                   needspinning, pending, midle, spinning, seen, budget, wpc,
                   timed>>

\* Every step of M m but Finish, Block and Unblock, the task's own doing;
\* these are weakly fair. Expire is as fair as the Go code's timer: a timed
\* M that stays parked looks in the end; NewM as NeedM's new M runs.
MStep(m) ==
    \/ (\/ StopM(m) \/ Look(m) \/ BecomeSpinning(m) \/ Steal(m)
        \/ ResetSpinning(m) \/ ReleaseP(m) \/ DropSpinning(m)
        \/ HandoffP(m) \/ AcquireP(m) \/ Requeue(m) \/ RequeueWakep(m))
       /\ KAMove(m)
    \/ Expire(m) \/ NewM(m)

Next ==
    \/ \E s \in Subs : Submit(s)
    \/ \E m \in Ms : MStep(m) \/ Finish(m) \/ Block(m) \/ Unblock(m)

Spec ==
    /\ Init /\ [][Next]_vars
    /\ \A s \in Subs : WF_vars(Submit(s))
    /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
(* Safety.                                                                 *)

TypeOK ==
    /\ queue \in 0..NTotal /\ done \in 0..NTotal /\ submitted \in 0..NTotal
    /\ left \in [Subs -> 0..NTasks] /\ spc \in [Subs -> SPCs]
    /\ nmspinning \in Nat /\ npidle \in 0..Procs /\ needspinning \in BOOLEAN
    /\ pending \in Seq(BOOLEAN) /\ Len(pending) <= Procs
    /\ midle \in Seq(Ms) /\ Len(midle) <= Cardinality(Ms)
    /\ pc \in [Ms -> MPCs] /\ spinning \in [Ms -> BOOLEAN]
    /\ seen \in [Ms -> Nat] /\ budget \in 0..NBlocks
    /\ wpc \in [Actors -> WPCs]
    /\ exited \subseteq Ms /\ timed \in [Ms -> BOOLEAN]

Count(S) == Cardinality(S)

NSpinPending == Count({i \in DOMAIN pending : pending[i]})

\* 0 <= nmspinning <= Procs for every count backed by a P (a spinning M
\* that holds one, a woken M, a waiting handoff, a Wakep that took one, a
\* HandoffP that counted itself). Two kinds of count hold no P: a spinning
\* M between ReleaseP and its decrement, and a Wakep between its CAS and
\* taking a P; there is at most one of the latter (its CAS succeeds only
\* from 0), and nmspinning exceeds Procs by no more than these. The plain
\* bound nmspinning <= Procs does not hold, here or in the runtime: see
\* README.md (NMSpinningAtMostProcs).
\* The Wakep places that hold the count of its CAS without a P: "need" too
\* when the count is given back last (NeedBeforeDec).
WHold == IF Mutant = "NeedBeforeDec" THEN {"getp", "need"} ELSE {"getp"}

Unbacked == Count({m \in Ms : spinning[m] /\ ~HasP(m)})
            + Count({a \in Actors : wpc[a] \in WHold})

SpinningBounds ==
    /\ 0 <= nmspinning
    /\ Count({m \in Ms : spinning[m] /\ HasP(m)})
         + Count({m \in Ms : pc[m] \in {"woken", "hclr", "hstarts"}}) + NSpinPending
         + Count({a \in Actors : wpc[a] = "startm"}) <= Procs
    /\ Count({a \in Actors : wpc[a] \in WHold}) <= 1
    /\ nmspinning <= Procs + Unbacked

\* KeepAlive: only Ms beyond the Ps exit; at least Procs Ms stay alive.
KeepAliveBound == Alive >= Procs /\ (~KeepAlive => exited = {})

\* The bound as the runtime's comments suggest it; TLC refutes it (a one-off
\* check, not in any cfg).
NMSpinningAtMostProcs == nmspinning <= Procs

\* An M is spinning iff it is counted: nmspinning is exactly the spinning
\* Ms, the Ms woken to spin, the waiting spinning handoffs, the Wakeps that
\* hold the count of their CAS, and the HandoffPs that counted the M they
\* are about to start.
SpinningCounted ==
    nmspinning = Count({m \in Ms : spinning[m]})
                 + Count({m \in Ms : pc[m] \in {"woken", "hclr", "hstarts"}})
                 + NSpinPending
                 + Count({a \in Actors : wpc[a] \in WHold \cup {"startm"}})

\* Every P is in exactly one place.
PConservation ==
    Procs = npidle + Count({m \in Ms : HasP(m)})
                   + Count({m \in Ms : pc[m] \in {"woken", "wokenn"}})
                   + Len(pending)
                   + Count({a \in Actors : wpc[a] = "startm"})

\* The idle list holds exactly the parked Ms; a spinning M is never parked,
\* stopping, re-checking, running, handing off or blocked.
IdleMs ==
    /\ \A m \in Ms : (m \in Range(midle)) <=> (pc[m] = "park")
    /\ Len(midle) = Count(Range(midle))
    /\ \A m \in Ms : spinning[m] => pc[m] \in SpinPCs

\* Every task submitted is queued, held by an M (running, handing off,
\* blocked, being put back), or done, exactly once.
TaskConservation == queue + Count({m \in Ms : HasTask(m)}) + done = submitted

---------------------------------------------------------------------------
(* Liveness.                                                               *)
(*                                                                         *)
(* WorkConserving (no lost wakeup): a queued task and an idle P (idle, or  *)
(* in a handoff that waits for an M) never coexist forever: eventually the *)
(* queue is empty or every P is busy. Tasks may run forever, so a task     *)
(* may also wait because every P runs something that never ends; this is  *)
(* the form of "some M eventually runs it" that holds then. It holds       *)
(* vacuously of any behaviour that keeps every P busy forever.             *)
(*                                                                         *)
(* AllTasksDone: if every task that runs eventually ends and every        *)
(* blocking call returns (TasksEnd: weak fairness of Finish and Unblock),  *)
(* every submitted task is eventually taken and run to its end. It fails   *)
(* where every P could be kept busy forever (EndlessTasks), which          *)
(* WorkConserving cannot see, and where a task is left queued with every M *)
(* parked.                                                                 *)

IdlePs == npidle + Len(pending)

WorkConserving == (queue > 0 /\ IdlePs > 0) ~> (queue = 0 \/ IdlePs = 0)

TasksEnd == \A m \in Ms : WF_vars(Finish(m)) /\ WF_vars(Unblock(m))

AllTasksDone == TasksEnd => <>(done = NTotal)
=============================================================================
