------------------------------ MODULE Executor ------------------------------
(***************************************************************************)
(* executor.Executor: the five components composed, at the grain of their  *)
(* operations (each verified on its own in Ring, Runnext, GlobalQ, Steal   *)
(* and Spinning.tla, so each is one atomic step here), plus what only the  *)
(* composition has: the M loop (schedule, findRunnable), sysmon's retake   *)
(* and handoffp, and a group's Wait that helps (helpWait).                 *)
(*                                                                         *)
(* A P's local queue is a runnext slot before a ring (a sequence; overflow *)
(* is GlobalQ.tla's and never happens in these models). The global queue  *)
(* is a sequence. Spinning is its counters (nmspinning, needspinning), the *)
(* idle P set, the idle M list and the waiting handoffs; Wakep, HandoffP,  *)
(* ResetSpinning and the drop-and-recheck are one step each. The stealing  *)
(* idle mask is its own set: a P released by findRunnable is in it, a P    *)
(* handed off is not (as in the Go code).                                  *)
(*                                                                         *)
(* Tasks are 1..N, run by a fixed program (Kind, Kids, Outside): a leaf    *)
(* ends; a hog spawns its kids then blocks without saying so (a system     *)
(* call, a CPU loop): it may never end, and only sysmon frees its P; a     *)
(* fork spawns its kids into its group, Waits for them, then ends. Tasks   *)
(* in Outside are submitted from outside, in order. A queue item is a task *)
(* or an M: the resume token of the M whose task waits for a P.            *)
(*                                                                         *)
(* Time is abstract: sysmon may retake whenever its condition holds, so    *)
(* "past the slice" is any time; the 1-in-61 global check is a choice the  *)
(* M may make whenever the global queue and its P's queue hold tasks (with *)
(* its own queue empty, the global batch takes the same task first). The   *)
(* Ms are a fixed set: in Go a handoff that finds no idle M makes one      *)
(* (NeedM); here it waits in pend for the next M that stops, and           *)
(* AllTasksRun assumes that it does not wait forever (MsSuffice).          *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    Procs,    \* the number of Ps; they are 1..Procs
    Program,  \* "small", "long" or "preempt": which task program runs (below)
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants. Each of the first four is the Go mutation
\* (executor/mutation.go) of the same name:
\*   SysmonOff           sysmon never retakes a P
\*   WaitBlocksP         a Wait inside a task blocks its M, holding its P,
\*                       instead of helping and handing the P away
\*   RecheckGlobalOnly   the re-check of every queue (Config.Work: the
\*                       drop-and-recheck and HandoffP) sees only the global
\*                       queue
\*   NoRecheck           Config.Work answers "no work": DropSpinning parks
\*                       without re-checking, HandoffP sees no work
\* and, in the spec only, one per invariant, each breaking it:
\*   BatchDropsRest      a global batch runs its first task and drops the rest
\*   StealCopies         a steal from a ring leaves the stolen tasks there
\*   ResumeKeepsP        resume hands the P to the waiting M and keeps it too
\*   AcquireKeepsIdle    AcquireP takes an idle P and leaves it in the idle set
\*   ReleaseLosesP       ReleaseP puts the P in no idle set
\*   ParkOffList         StopM parks the M without putting it on the idle list
\* and, for the no-lost-wakeup rule (NoLostWakeup, WaitGivesUpOnlyEmpty),
\* three Go mutations of the same name and two of the spec only:
\*   NoSpawnWake         a spawn into the P's runnext wakes nobody
\*   NoGlobalSpawnWake   a spawn without a P (to the global queue) wakes nobody
\*   SubmitWakesOnlyIdle a submit wakes an M only if a P idles and no M
\*                       spins (wakeIfIdle), never asking for a spinner
\*   ReadyNoWake         ready puts the waiter's token in a queue and wakes nobody
\*   GiveUpWithWork      a Wait gives its P up while the P's queue holds tasks
\* and, for the preempt path (program "preempt"), of the spec only:
\*   PreemptNoWake       the runnext item requeued to the global queue by a
\*                       preempt request wakes nobody (no wakeIfIdle): at
\*                       this grain it passes (the requeue is one step;
\*                       ExecutorFine.tla splits it and rejects it)
Mutants == {"none", "SysmonOff", "WaitBlocksP", "RecheckGlobalOnly", "NoRecheck",
            "BatchDropsRest", "StealCopies", "ResumeKeepsP", "AcquireKeepsIdle",
            "ReleaseLosesP", "ParkOffList", "NoSpawnWake", "NoGlobalSpawnWake",
            "SubmitWakesOnlyIdle", "ReadyNoWake", "GiveUpWithWork",
            "PreemptNoWake"}

ASSUME /\ IsFiniteSet(Ms) /\ Ms # {}
       /\ Procs \in Nat /\ Procs >= 1
       /\ Program \in {"small", "long", "preempt"}
       /\ Mutant \in Mutants

(***************************************************************************)
(* The programs. small: two hogs, submitted from outside with fork 3, the  *)
(* root of a nested group: 3 waits for fork 4, which waits for leaf 5.     *)
(* long: the same with a wider tree: 3 waits for forks 4 and 6, and 4 for  *)
(* leaves 5 and 7.                                                         *)
(***************************************************************************)
(* preempt: hog 1, submitted from outside, spawns leaves 2 and 3 (3 in its  *)
(* P's runnext, 2 displaced to the ring), then blocks; leaf 4 is submitted *)
(* after it; a preempt request                                             *)
(* (PreemptRequeue) may send the runnext item to the global queue while    *)
(* the other P idles.                                                      *)
N == CASE Program = "small" -> 5 [] Program = "long" -> 7 [] OTHER -> 4
Tasks == 1..N
Kind(t) == CASE Program = "preempt" -> IF t = 1 THEN "hog" ELSE "leaf"
           []   t \in {1, 2} -> "hog"
           []   t \in {3, 4} -> "fork"
           []   OTHER -> "leaf"
Kids(t) == CASE Program = "preempt" -> IF t = 1 THEN <<2, 3>> ELSE <<>>
           []   t = 3 -> IF Program = "small" THEN <<4>> ELSE <<4, 6>>
           []   t = 4 -> IF Program = "small" THEN <<5>> ELSE <<5, 7>>
           []   OTHER -> <<>>
\* Outside's batches, submitted in order (Executor.GoBatch, Executor.Go).
Outside == IF Program = "preempt" THEN << <<1>>, <<4>> >> ELSE << <<1, 2>>, <<3>> >>
Forks == {t \in Tasks : Kind(t) = "fork"}
Hogs == {t \in Tasks : Kind(t) = "hog"}
\* The fork whose group t belongs to; 0 for none (a hog's kid is a plain spawn).
Parent(t) == IF \E f \in Forks : \E i \in 1..Len(Kids(f)) : Kids(f)[i] = t
               THEN CHOOSE f \in Forks : \E i \in 1..Len(Kids(f)) : Kids(f)[i] = t
               ELSE 0
NK(t) == Len(Kids(t))
\* tpc[t]: kids spawned so far (0..NK); then InWait (in Wait), Waited (Wait
\* returned).
InWaitPC(t) == NK(t) + 1
WaitedPC(t) == NK(t) + 2

Ps == 1..Procs
Items == Tasks \cup Ms
NoItem == 0

VARIABLES
    glob,     \* the global queue (globalq), oldest first
    rnext,    \* rnext[p]: P p's runnext slot, NoItem when empty
    ring,     \* ring[p]: P p's ring (lfq), oldest first
    pidle,    \* the Sched's idle Ps (npidle is its size)
    imask,    \* stealing's idle mask: Ps that thieves skip
    nmspin,   \* sched.nmspinning
    needspin, \* sched.needspinning
    midle,    \* the idle M list, a stack
    pend,     \* handoffs waiting for an M, a stack of <<P, spin>>
    pc,       \* pc[m]: where M m is
    hold,     \* hold[m]: the P M m holds, 0 for none
    spin,     \* spin[m]: M m is spinning
    stack,    \* stack[m]: the tasks on M m, innermost last (a Wait runs
              \* tasks nested in the waiting task)
    tpc,      \* tpc[t]: task t's progress
    gn,       \* gn[f]: tasks of f's group started and not finished
    waiter,   \* waiter[f]: the M parked in f's Wait, or NoItem
    nrun,     \* nrun[t]: times task t started running (capped at 2)
    done,     \* tasks that ended
    subm      \* batches of Outside submitted so far

vars == <<glob, rnext, ring, pidle, imask, nmspin, needspin, midle, pend,
          pc, hold, spin, stack, tpc, gn, waiter, nrun, done, subm>>

\* An M's places.
MPCs == {"park",       \* on the idle M list (StopM), no P
         "find",       \* P: findRunnable, the P's queue and the global queue
         "release",    \* P: nothing found: ReleaseP (and DropSpinning)
         "exitp",      \* no P, no task: exitsyscall's pidleget, else StopM
         "run",        \* its innermost task runs (spawns, ends, or hogs)
         "wait",       \* its innermost task is in Wait: check, help
         "giveup",     \* Wait found nothing to run: giveUpP (HandoffP)
         "waitlock",   \* Wait under the group's lock: register, or reacquire
         "parked",     \* asleep until its resume token runs (no P)
         "blockwait"}  \* WaitBlocksP: asleep in Wait, holding its P
\* Where the P an M holds is in pTask, the state sysmon may retake from.
TaskPCs == {"run", "wait", "giveup", "blockwait"}

Range(s) == {s[i] : i \in DOMAIN s}
Top(s) == s[Len(s)]
Pop(s) == SubSeq(s, 1, Len(s) - 1)
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
Min2(a, b) == IF a < b THEN a ELSE b
Count(s, x) == Cardinality({i \in DOMAIN s : s[i] = x})
Inner(m) == Top(stack[m])

Init ==
    /\ glob = <<>>
    /\ rnext = [p \in Ps |-> NoItem]
    /\ ring = [p \in Ps |-> <<>>]
    /\ pidle = Ps
    /\ imask = Ps
    /\ nmspin = 0 /\ needspin = FALSE
    /\ midle = CHOOSE s \in [1..Cardinality(Ms) -> Ms] : Range(s) = Ms
    /\ pend = <<>>
    /\ pc = [m \in Ms |-> "park"]
    /\ hold = [m \in Ms |-> 0]
    /\ spin = [m \in Ms |-> FALSE]
    /\ stack = [m \in Ms |-> <<>>]
    /\ tpc = [t \in Tasks |-> 0]
    /\ gn = [t \in Tasks |-> 0]
    /\ waiter = [t \in Tasks |-> NoItem]
    /\ nrun = [t \in Tasks |-> 0]
    /\ done = {}
    /\ subm = 0

---------------------------------------------------------------------------
(* The spinning state as one record, so that the Sched's operations        *)
(* compose inside one step: each maps a record to a record, and Commit     *)
(* makes it the next state.                                                *)

Cur == [pc |-> pc, hold |-> hold, spin |-> spin, nm |-> nmspin,
        need |-> needspin, pidle |-> pidle, imask |-> imask,
        midle |-> midle, pend |-> pend]

Commit(s) ==
    /\ pc' = s.pc /\ hold' = s.hold /\ spin' = s.spin /\ nmspin' = s.nm
    /\ needspin' = s.need /\ pidle' = s.pidle /\ imask' = s.imask
    /\ midle' = s.midle /\ pend' = s.pend

\* takeP: m holds p (out of the idle mask) and looks for work.
TakeP(s, m, p, sp) ==
    [s EXCEPT !.hold[m] = p, !.spin[m] = sp, !.pc[m] = "find",
              !.imask = @ \ {p}]

\* startm(p, spin): hand p to the last idle M and wake it, or leave a
\* waiting handoff for the next StopM.
StartM(s, p, sp) ==
    IF s.midle # <<>>
      THEN TakeP([s EXCEPT !.midle = Pop(@)], Top(s.midle), p, sp)
      ELSE [s EXCEPT !.pend = Append(@, <<p, sp>>)]

\* StopM: take a waiting handoff, or park on the idle M list.
StopM(s, m) ==
    IF s.pend # <<>>
      THEN TakeP([s EXCEPT !.pend = Pop(@)], m, Top(s.pend)[1], Top(s.pend)[2])
      ELSE [s EXCEPT !.midle = IF Mutant = "ParkOffList" THEN @ ELSE Append(@, m),
                     !.pc[m] = "park"]

\* Wakep: with no M spinning, take an idle P and start a spinning M on it;
\* with none idle, ask a releasing M to spin (needspinning).
Wakep(s) ==
    IF s.nm # 0 THEN s
    ELSE IF s.pidle # {}
      THEN LET p == MinOf(s.pidle)
           IN StartM([s EXCEPT !.pidle = @ \ {p}, !.nm = 1], p, TRUE)
      ELSE [s EXCEPT !.need = TRUE]

\* Config.Work: does any run queue hold a task? The global queue, and every
\* P's queue, idle or not (RecheckGlobalOnly: the global queue only;
\* NoRecheck: none).
Work == /\ Mutant # "NoRecheck"
        /\ \/ glob # <<>>
           \/ /\ Mutant # "RecheckGlobalOnly"
              /\ \E p \in Ps : rnext[p] # NoItem \/ ring[p] # <<>>

\* HandoffP(p): p leaves its M. Work: start an M on it; no M spinning and
\* no P idle: start a spinning one; needspinning: the same; else p idles.
HandoffP(s, p) ==
    IF Work THEN StartM(s, p, FALSE)
    ELSE IF s.nm = 0 /\ s.pidle = {}
      THEN StartM([s EXCEPT !.nm = 1, !.need = FALSE], p, TRUE)
    ELSE IF s.need
      THEN StartM([s EXCEPT !.nm = @ + 1, !.need = FALSE], p, TRUE)
    ELSE [s EXCEPT !.pidle = @ \cup {p}]

\* ResetSpinning: a spinning M found work: it stops spinning, and if it was
\* the last spinner it wakes another (the runtime's resetspinning).
ResetSpinning(s, m) ==
    IF s.spin[m] THEN Wakep([s EXCEPT !.spin[m] = FALSE, !.nm = @ - 1]) ELSE s

\* wakeIfIdle: after a local put, wake an M only if a P idles and no M spins.
WakeIfIdle(s) == IF s.pidle # {} /\ s.nm = 0 THEN Wakep(s) ELSE s

\* AcquireP for an M without one: an idle P, or FALSE.
AcquireP(s, m, nextpc) ==
    IF s.pidle # {}
      THEN LET p == MinOf(s.pidle)
           IN [[s EXCEPT !.pidle = IF Mutant = "AcquireKeepsIdle" THEN @ ELSE @ \ {p}] EXCEPT
                 !.hold[m] = p, !.imask = @ \ {p}, !.pc[m] = nextpc]
      ELSE s

---------------------------------------------------------------------------
(* The queues of P p: runnext, ring.                                       *)

LocalEmpty(p) == rnext[p] = NoItem /\ ring[p] = <<>>

\* PutNext on P p moves its runnext task (if any) to the ring's tail: the ring after.
Displace(p) ==
    IF rnext[p] = NoItem THEN ring ELSE [ring EXCEPT ![p] = Append(@, rnext[p])]

\* Victims a thief on P p may steal from: not p, not in the idle mask. The
\* four passes take from a ring first; a runnext task only on the last
\* pass, after the steal delay (which a thief waits out, so a task still in
\* the slot then is taken): so from a slot only when no ring has a task.
RingVictims(p) == {v \in Ps \ {p} : v \notin imask /\ ring[v] # <<>>}
SlotVictims(p) == {v \in Ps \ {p} : v \notin imask /\ rnext[v] # NoItem}
CanSteal(p) == RingVictims(p) # {} \/ SlotVictims(p) # {}

---------------------------------------------------------------------------
(* Running an item on M m, holding P p (execute): a task is pushed on the  *)
(* M's stack and runs; a resume token of M w hands p to w, which goes on   *)
(* with its Wait, and m goes on without a P (the pair swap of resume).     *)

ExecS(s, m, x, p) ==
    IF x \in Ms
      THEN [s EXCEPT !.hold[x] = p, !.pc[x] = "wait",
                     !.hold[m] = IF Mutant = "ResumeKeepsP" THEN p ELSE 0,
                     !.pc[m] = IF stack[m] = <<>> THEN "exitp" ELSE "wait"]
      ELSE [s EXCEPT !.pc[m] = "run"]

ExecTask(m, x) ==
    IF x \in Ms
      THEN UNCHANGED <<stack, nrun>>
      ELSE /\ stack' = [stack EXCEPT ![m] = Append(@, x)]
           /\ nrun' = [nrun EXCEPT ![x] = IF @ < 2 THEN @ + 1 ELSE 2]  \* capped

UT == <<tpc, gn, waiter, done, subm>>

---------------------------------------------------------------------------
(* findRunnable, holding P p: the 1-in-61 global check (abstracted: any    *)
(* time the global queue and the P's queue both hold a task); runnext      *)
(* (inheriting the slice); the ring; a global batch (one to run, the rest  *)
(* to the empty ring). With nothing, the spinning rule: spin and steal, or *)
(* not; then, with nothing still, the next step releases the P and, if the *)
(* M spins, drops spinning and re-checks (Spinning.tla has them apart).    *)

\* Take item x (already out of its queue) to run on M m holding P p, after
\* ResetSpinning if m spins.
Take(s, m, x, p) == /\ Commit(ExecS(ResetSpinning(s, m), m, x, p))
                    /\ ExecTask(m, x)

\* globalBatch (globrunqgetbatch): n = min(len, len/Procs + 1) tasks, the
\* first to run, the rest to the P's empty ring.
GlobalBatch(m, p) ==
    LET n == Min2(Len(glob), Len(glob) \div Procs + 1)
    IN /\ Take(Cur, m, Head(glob), p)
       /\ ring' = [ring EXCEPT ![p] = IF Mutant = "BatchDropsRest" THEN <<>>
                                      ELSE SubSeq(glob, 2, n)]
       /\ glob' = SubSeq(glob, n + 1, Len(glob))
       /\ UNCHANGED rnext

\* The steal (stealing.Stealer.Steal, runqsteal): half of a victim's ring,
\* rounded up (the first runs, the rest go to the thief's empty ring), or
\* a victim's runnext task.
StealFrom(s, m, p, v, fromRing) ==
    LET n == (Len(ring[v]) + 1) \div 2
        x == IF fromRing THEN Head(ring[v]) ELSE rnext[v]
    IN /\ Take(s, m, x, p)
       /\ IF fromRing
            THEN /\ ring' = [ring EXCEPT ![v] = IF Mutant = "StealCopies" THEN @
                                                ELSE SubSeq(@, n + 1, Len(@)),
                                         ![p] = SubSeq(ring[v], 2, n)]
                 /\ UNCHANGED rnext
            ELSE /\ rnext' = [rnext EXCEPT ![v] = NoItem]
                 /\ UNCHANGED ring
       /\ UNCHANGED glob

Steal(s, m, p) ==
    IF RingVictims(p) # {}
      THEN \E v \in RingVictims(p) : StealFrom(s, m, p, v, TRUE)
      ELSE \E v \in SlotVictims(p) : StealFrom(s, m, p, v, FALSE)

\* Nothing found: ReleaseP (the P goes idle: into the idle mask, then the
\* Sched's idle set), unless needspinning asks this non-spinning M to spin:
\* then it keeps the P and looks again. A non-spinning M then stops
\* (StopM); a spinning one drops spinning and re-checks every queue
\* (DropSpinning, Config.Work): on work it takes an idle P and spins again
\* (none idle: it sets needspinning and stops), else it stops. NoRecheck
\* skips the re-check.
Release(s, m) ==
    LET p == hold[m]
        s1 == [s EXCEPT !.hold[m] = 0, !.imask = @ \cup {p}]
        s2 == [s1 EXCEPT !.pidle = IF Mutant = "ReleaseLosesP" THEN @ ELSE @ \cup {p}]
        s3 == [s2 EXCEPT !.spin[m] = FALSE, !.nm = @ - 1]
    IN IF ~s.spin[m] /\ s.need
         THEN TakeP([s1 EXCEPT !.need = FALSE, !.nm = @ + 1], m, p, TRUE)
       ELSE IF ~s.spin[m]
         THEN StopM(s2, m)
       ELSE IF Mutant # "NoRecheck" /\ Work
         THEN IF s3.pidle # {}                 \* p at least, but for ReleaseLosesP
                THEN LET q == MinOf(s3.pidle)
                     IN TakeP([s3 EXCEPT !.pidle = @ \ {q}, !.nm = @ + 1], m, q, TRUE)
                ELSE StopM([s3 EXCEPT !.need = TRUE], m)
       ELSE StopM(s3, m)

FindRunnable(m) ==
    /\ pc[m] = "find"
    /\ LET p == hold[m] IN
       \/ /\ glob # <<>> /\ ~LocalEmpty(p)     \* schedtick % 61 = 0
          /\ Take(Cur, m, Head(glob), p)
          /\ glob' = Tail(glob)
          /\ UNCHANGED <<rnext, ring>>
       \/ /\ rnext[p] # NoItem
          /\ Take(Cur, m, rnext[p], p)
          /\ rnext' = [rnext EXCEPT ![p] = NoItem]
          /\ UNCHANGED <<glob, ring>>
       \/ /\ rnext[p] = NoItem /\ ring[p] # <<>>
          /\ Take(Cur, m, Head(ring[p]), p)
          /\ ring' = [ring EXCEPT ![p] = Tail(@)]
          /\ UNCHANGED <<glob, rnext>>
       \/ /\ LocalEmpty(p) /\ glob # <<>>
          /\ GlobalBatch(m, p)
       \/ /\ LocalEmpty(p) /\ glob = <<>>
          /\ IF spin[m] \/ 2 * nmspin < Procs - Cardinality(pidle)
               THEN LET s == [Cur EXCEPT !.spin[m] = TRUE,
                                         !.nm = IF spin[m] THEN @ ELSE @ + 1]
                    IN IF CanSteal(p)
                         THEN Steal(s, m, p)
                         ELSE /\ Commit([s EXCEPT !.pc[m] = "release"])
                              /\ UNCHANGED <<glob, rnext, ring, stack, nrun>>
               ELSE /\ pc' = [pc EXCEPT ![m] = "release"]
                    /\ UNCHANGED <<glob, rnext, ring, pidle, imask, nmspin,
                                   needspin, midle, pend, hold, spin, stack, nrun>>
    /\ UNCHANGED UT

ReleaseP(m) ==
    /\ pc[m] = "release"
    /\ Commit(Release(Cur, m))
    /\ UNCHANGED <<glob, rnext, ring, stack, nrun>> /\ UNCHANGED UT

\* An M with no P and no task (its task lost the P, or it handed its P to a
\* waiting task): an idle P, else StopM (exitP).
ExitP(m) ==
    /\ pc[m] = "exitp"
    /\ Commit(IF pidle # {} THEN AcquireP(Cur, m, "find") ELSE StopM(Cur, m))
    /\ UNCHANGED <<glob, rnext, ring, stack, nrun>> /\ UNCHANGED UT

---------------------------------------------------------------------------
(* The innermost task t on M m runs: it spawns its next kid (Task.Go,      *)
(* Group.Go; a fork calls Wait in the same step as its last Go); it ends   *)
(* (a fork: when its Wait returns, in the same step).                      *)

\* spawn: with the P still held (its status word names this M), PutNext
\* into its runnext (the old one to the ring) and wakeIfIdle; without it,
\* the global queue and Wakep.
Spawn(m) ==
    /\ pc[m] = "run"
    /\ LET t == Inner(m) IN
       /\ tpc[t] < NK(t)
       /\ LET k == Kids(t)[tpc[t] + 1]
              p == hold[m]
              wait == Kind(t) = "fork" /\ tpc[t] + 1 = NK(t)
              s == IF wait THEN [Cur EXCEPT !.pc[m] = "wait"] ELSE Cur
          IN /\ tpc' = [tpc EXCEPT ![t] = IF wait THEN InWaitPC(t) ELSE @ + 1]
             /\ gn' = IF Kind(t) = "fork" THEN [gn EXCEPT ![t] = @ + 1] ELSE gn
             /\ IF p # 0
                  THEN /\ ring' = Displace(p)
                       /\ rnext' = [rnext EXCEPT ![p] = k]
                       /\ Commit(IF Mutant = "NoSpawnWake" THEN s ELSE WakeIfIdle(s))
                       /\ UNCHANGED glob
                  ELSE /\ glob' = Append(glob, k)
                       /\ Commit(IF Mutant = "NoGlobalSpawnWake" THEN s ELSE Wakep(s))
                       /\ UNCHANGED <<rnext, ring>>
    /\ UNCHANGED <<stack, waiter, nrun, done, subm>>

\* The task ends (the end of run: claim the P back, finish the group). The
\* group's last task readies the M parked in the group's Wait (ready): its
\* resume token goes to this M's P's runnext with wakeIfIdle, or, with no
\* P, to the global queue with Wakep. The M goes on with the Wait its task
\* was nested in, or looks for work (with its P) or for a P (exitP).
End(m) ==
    /\ LET t == Inner(m)
           f == Parent(t)
           p == hold[m]
           st1 == [stack EXCEPT ![m] = Pop(@)]
           last == f # 0 /\ gn[f] = 1
           w == IF last THEN waiter[f] ELSE NoItem
           s == [Cur EXCEPT !.pc[m] = IF st1[m] # <<>> THEN "wait"
                                      ELSE IF p # 0 THEN "find" ELSE "exitp"]
       IN /\ IF Kind(t) = "fork"
               THEN pc[m] = "wait" /\ gn[t] = 0             \* Wait returns
               ELSE pc[m] = "run" /\ tpc[t] = NK(t)
          /\ tpc' = IF Kind(t) = "fork" THEN [tpc EXCEPT ![t] = WaitedPC(t)] ELSE tpc
          /\ stack' = st1
          /\ done' = done \cup {t}
          /\ gn' = IF f # 0 THEN [gn EXCEPT ![f] = @ - 1] ELSE gn
          /\ waiter' = IF w # NoItem THEN [waiter EXCEPT ![f] = NoItem] ELSE waiter
          /\ IF w = NoItem
               THEN /\ Commit(s) /\ UNCHANGED <<glob, rnext, ring>>
             ELSE IF p # 0
               THEN /\ ring' = Displace(p)
                    /\ rnext' = [rnext EXCEPT ![p] = w]
                    /\ Commit(IF Mutant = "ReadyNoWake" THEN s ELSE WakeIfIdle(s))
                    /\ UNCHANGED glob
             ELSE /\ glob' = Append(glob, w)
                  /\ Commit(IF Mutant = "ReadyNoWake" THEN s ELSE Wakep(s))
                  /\ UNCHANGED <<rnext, ring>>
    /\ UNCHANGED <<nrun, subm>>

---------------------------------------------------------------------------
(* Group.Wait inside a task (helpWait): while the group is not done, run   *)
(* a queued task nested in the waiting one (helpOnce: the P's queue, a     *)
(* global batch, a steal; no spinning); with none, give the P away         *)
(* (giveUpP), and under the group's lock register and park, or, if the     *)
(* group is done by then, reacquire a P (an idle one, else the resume      *)
(* token goes to the global queue and the M parks).                        *)

WaitHelp(m) ==
    /\ pc[m] = "wait"
    /\ LET t == Inner(m)
           p == hold[m]
       IN /\ gn[t] # 0                       \* else End: Wait returns
          /\ UNCHANGED tpc
          /\ IF Mutant = "WaitBlocksP"
               THEN /\ pc' = [pc EXCEPT ![m] = "blockwait"]
                    /\ UNCHANGED <<glob, rnext, ring, pidle, imask, nmspin,
                                   needspin, midle, pend, hold, spin, stack, nrun>>
             ELSE IF p = 0 \/ ((LocalEmpty(p) \/ Mutant = "GiveUpWithWork")
                                /\ glob = <<>> /\ ~CanSteal(p))
               THEN /\ pc' = [pc EXCEPT ![m] = "giveup"]
                    /\ UNCHANGED <<glob, rnext, ring, pidle, imask, nmspin,
                                   needspin, midle, pend, hold, spin, stack, nrun>>
             ELSE /\ \/ /\ rnext[p] # NoItem
                        /\ Commit(ExecS(Cur, m, rnext[p], p))
                        /\ ExecTask(m, rnext[p])
                        /\ rnext' = [rnext EXCEPT ![p] = NoItem]
                        /\ UNCHANGED <<glob, ring>>
                     \/ /\ rnext[p] = NoItem /\ ring[p] # <<>>
                        /\ Commit(ExecS(Cur, m, Head(ring[p]), p))
                        /\ ExecTask(m, Head(ring[p]))
                        /\ ring' = [ring EXCEPT ![p] = Tail(@)]
                        /\ UNCHANGED <<glob, rnext>>
                     \/ /\ LocalEmpty(p) /\ glob # <<>>
                        /\ GlobalBatch(m, p)
                     \/ /\ LocalEmpty(p) /\ glob = <<>>
                        /\ Steal(Cur, m, p)
    /\ UNCHANGED <<gn, waiter, done, subm>>

\* giveUpP: the P, if this M still holds it, goes to HandoffP.
WaitGiveUp(m) ==
    /\ pc[m] = "giveup"
    /\ LET s == [Cur EXCEPT !.pc[m] = "waitlock"]
       IN Commit(IF hold[m] # 0
                   THEN HandoffP([s EXCEPT !.hold[m] = 0], hold[m])
                   ELSE s)
    /\ UNCHANGED <<glob, rnext, ring, stack, nrun>> /\ UNCHANGED UT

WaitLock(m) ==
    /\ pc[m] = "waitlock"
    /\ LET t == Inner(m) IN
       IF gn[t] # 0
         THEN /\ waiter' = [waiter EXCEPT ![t] = m]
              /\ pc' = [pc EXCEPT ![m] = "parked"]
              /\ UNCHANGED <<glob, pidle, imask, nmspin, needspin, midle, pend,
                             hold, spin>>
       ELSE IF pidle # {}
         THEN /\ Commit(AcquireP(Cur, m, "wait"))
              /\ UNCHANGED <<glob, waiter>>
       ELSE /\ glob' = Append(glob, m)                \* waitP
            /\ Commit(Wakep([Cur EXCEPT !.pc[m] = "parked"]))
            /\ UNCHANGED waiter
    /\ UNCHANGED <<rnext, ring, stack, nrun, tpc, gn, done, subm>>

\* WaitBlocksP: the blocked Wait wakes when its group is done, and goes on
\* with the P it kept (if sysmon has not taken it).
BlockWaitWake(m) ==
    /\ pc[m] = "blockwait"
    /\ gn[Inner(m)] = 0
    /\ pc' = [pc EXCEPT ![m] = "wait"]
    /\ UNCHANGED <<glob, rnext, ring, pidle, imask, nmspin, needspin, midle,
                   pend, hold, spin, stack, tpc, gn, waiter, nrun, done, subm>>

---------------------------------------------------------------------------
(* From outside: submit the next batch of Outside to the global queue and  *)
(* Wakep (Executor.GoBatch, Executor.Go: publish, then wake).              *)

Submit ==
    /\ subm < Len(Outside)
    /\ subm' = subm + 1
    /\ glob' = glob \o Outside[subm + 1]
    /\ Commit(IF Mutant = "SubmitWakesOnlyIdle" THEN WakeIfIdle(Cur) ELSE Wakep(Cur))
    /\ UNCHANGED <<rnext, ring, stack, tpc, gn, waiter, nrun, done>>

\* sysmon's retake and handoffp: P p's holder runs a task (pTask) and work
\* waits for p (in its own queue, or in the global queue with no P idle):
\* p goes to HandoffP; the task runs on without it.
Retake(p) ==
    /\ Mutant # "SysmonOff"
    /\ \E m \in Ms :
         /\ hold[m] = p /\ pc[m] \in TaskPCs
         /\ ~LocalEmpty(p) \/ (glob # <<>> /\ pidle = {})
         /\ Commit(HandoffP([Cur EXCEPT !.hold[m] = 0], p))
    /\ UNCHANGED <<glob, rnext, ring, stack, tpc, gn, waiter, nrun, done, subm>>

Sysmon == \E p \in Ps : Retake(p)

\* The preempt path (program "preempt" only): sysmon's request (abstract:
\* any time) is honoured at M m's next get from its P p: with a task or a
\* token in p's runnext and work queued behind it (p's ring, or the global
\* queue), the runnext item goes to the global queue's tail and wakeIfIdle
\* runs, as for any queued task. It mirrors localGet's preempt branch
\* (executor/sched.go: global.Put, wakeIfIdle; the runtime's gopreempt_m,
\* globrunqput). PreemptNoWake wakes nobody.
PreemptRequeue(m) ==
    /\ Program = "preempt"
    /\ pc[m] = "find"
    /\ LET p == hold[m] IN
       /\ rnext[p] # NoItem
       /\ ring[p] # <<>> \/ glob # <<>>
       /\ glob' = Append(glob, rnext[p])
       /\ rnext' = [rnext EXCEPT ![p] = NoItem]
       /\ Commit(IF Mutant = "PreemptNoWake" THEN Cur ELSE WakeIfIdle(Cur))
    /\ UNCHANGED <<ring, stack, nrun>> /\ UNCHANGED UT

---------------------------------------------------------------------------

\* A hog's end: not fair (it may block forever).
HogEnd(m) == pc[m] = "run" /\ Kind(Inner(m)) = "hog" /\ End(m)
TaskEnd(m) == pc[m] \in {"run", "wait"} /\ Kind(Inner(m)) # "hog" /\ End(m)

\* Every step of M m but a hog's end; these are weakly fair.
MStep(m) ==
    \/ FindRunnable(m) \/ ReleaseP(m) \/ ExitP(m) \/ Spawn(m) \/ TaskEnd(m)
    \/ WaitHelp(m) \/ WaitGiveUp(m) \/ WaitLock(m) \/ BlockWaitWake(m)

\* The preempt request comes at sysmon's will: not fair.
Next ==
    \/ Submit
    \/ Sysmon
    \/ \E m \in Ms : MStep(m) \/ HogEnd(m) \/ PreemptRequeue(m)

\* Sysmon's fairness is not in Spec: the properties say when they need it.
Spec ==
    /\ Init /\ [][Next]_vars
    /\ WF_vars(Submit)
    /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
(* Safety.                                                                 *)

TypeOK ==
    /\ glob \in Seq(Items)
    /\ rnext \in [Ps -> Items \cup {NoItem}]
    /\ ring \in [Ps -> Seq(Items)]
    /\ pidle \subseteq Ps /\ imask \subseteq Ps
    /\ nmspin \in Nat /\ needspin \in BOOLEAN
    /\ midle \in Seq(Ms) /\ pend \in Seq(Ps \X BOOLEAN)
    /\ pc \in [Ms -> MPCs] /\ hold \in [Ms -> Ps \cup {0}]
    /\ spin \in [Ms -> BOOLEAN] /\ stack \in [Ms -> Seq(Tasks)]
    /\ tpc \in [Tasks -> 0..N + 2] /\ gn \in [Tasks -> 0..N]
    /\ waiter \in [Tasks -> Ms \cup {NoItem}]
    /\ nrun \in [Tasks -> 0..2] /\ done \subseteq Tasks
    /\ subm \in 0..Len(Outside)

\* Made: submitted from outside, or spawned by its parent.
Made(t) ==
    \/ \E i \in 1..subm : t \in Range(Outside[i])
    \/ \E f \in Tasks : \E i \in 1..tpc[f] : i <= NK(f) /\ Kids(f)[i] = t

\* How many times item x sits in the queues (global, runnext, rings).
Queued(x) == Count(glob, x) + Cardinality({p \in Ps : rnext[p] = x})
             + (LET c(p) == Count(ring[p], x)
                    F[S \in SUBSET Ps] == IF S = {} THEN 0
                                          ELSE LET p == CHOOSE q \in S : TRUE
                                               IN c(p) + F[S \ {p}]
                IN F[Ps])
OnStacks(t) == LET F[S \in SUBSET Ms] == IF S = {} THEN 0
                                         ELSE LET m == CHOOSE q \in S : TRUE
                                              IN Count(stack[m], t) + F[S \ {m}]
               IN F[Ms]

\* Conservation: every task made is in exactly one place (a queue, an M's
\* stack: running or waiting, or done); one not made is nowhere. A resume
\* token is queued at most once, and only while its M is parked and no
\* group holds it as a waiter.
Conservation ==
    /\ \A t \in Tasks :
         Queued(t) + OnStacks(t) + (IF t \in done THEN 1 ELSE 0)
           = IF Made(t) THEN 1 ELSE 0
    /\ \A m \in Ms :
         /\ Queued(m) <= 1
         /\ Queued(m) = 1 => pc[m] = "parked" /\ \A f \in Tasks : waiter[f] # m

\* Exactly once: a task runs at most once; it has run iff it is on a stack
\* or done.
ExactlyOnce ==
    \A t \in Tasks :
       /\ nrun[t] <= 1
       /\ (nrun[t] = 1) <=> (OnStacks(t) = 1 \/ t \in done)

\* A P is held by at most one M; so at most Procs Ms hold a P.
POneHolder == \A m1, m2 \in Ms : m1 # m2 /\ hold[m1] # 0 => hold[m1] # hold[m2]
AtMostProcsHoldP == Cardinality({m \in Ms : hold[m] # 0}) <= Procs

\* Every P is in exactly one place: held, idle, or in a waiting handoff.
PConservation ==
    \A p \in Ps :
       Cardinality({m \in Ms : hold[m] = p}) + (IF p \in pidle THEN 1 ELSE 0)
         + Count([i \in DOMAIN pend |-> pend[i][1]], p) = 1

\* The M lists and spinning: the idle list holds exactly the parked Ms; a
\* handoff waits only while no M is idle; nmspinning counts the spinning Ms
\* and the waiting spinning handoffs; a spinning M has no task.
SchedState ==
    /\ \A m \in Ms : (m \in Range(midle)) <=> pc[m] = "park"
    /\ Len(midle) = Cardinality(Range(midle))
    /\ pend # <<>> => midle = <<>>
    /\ nmspin = Cardinality({m \in Ms : spin[m]})
                + Cardinality({i \in DOMAIN pend : pend[i][2]})
    /\ \A m \in Ms : spin[m] => pc[m] \in {"find", "release"}
    /\ \A m \in Ms : hold[m] # 0 => pc[m] \notin {"park", "exitp", "waitlock", "parked"}
    /\ \A m \in Ms : pc[m] \in {"find", "release"} => hold[m] # 0

\* No lost wakeup, as executor/doc.go states it: while a task (or a resume
\* token) is queued anywhere and a P is idle, an M spins, a handoff waits
\* for an M, or an M is about to take a P (exitP; a Wait whose group is
\* done, in reacquire). Then an idle P starts on the work without anything
\* else happening, where AllTasksRun would let a later submit, a hog's end
\* or a retake rescue it.
WorkQueued == glob # <<>> \/ \E p \in Ps : ~LocalEmpty(p)
AboutToTakeP(m) == \/ pc[m] = "exitp"
                   \/ pc[m] = "waitlock" /\ gn[Inner(m)] = 0
NoLostWakeup ==
    (WorkQueued /\ pidle # {}) =>
        \/ nmspin > 0
        \/ pend # <<>>
        \/ \E m \in Ms : AboutToTakeP(m)

\* A Wait gives its P up (giveUpP) only when that P's queue is empty: a P
\* never leaves a Wait with work queued on it, which a HandoffP would
\* have to rescue.
WaitGivesUpOnlyEmpty ==
    \A m \in Ms : pc[m] = "giveup" /\ hold[m] # 0 => LocalEmpty(hold[m])

\* IdleMaskOnlyIdle: stealing's idle mask holds only idle Ps: a P in it is
\* held by no M and its queue is empty, so a thief that skips it misses no
\* work (executor/sched.go: findRunnable's idle.Set before releasep,
\* takeP's idle.Clear; the runtime's idlepMask). ExecutorFine.tla states
\* it at the Go code's grain.
IdleMaskOnlyIdle ==
    \A p \in imask : LocalEmpty(p) /\ \A m \in Ms : hold[m] # p

---------------------------------------------------------------------------
(* Liveness.                                                               *)
(*                                                                         *)
(* MsSuffice: a handoff does not wait forever for an M (in Go, NeedM makes *)
(* one; here the Ms are three). SysmonFair: sysmon retakes whenever it     *)
(* can, for ever. HogsEnd: every blocked hog eventually returns.           *)
(*                                                                         *)
(* AllTasksRun: every task eventually runs, even when the hogs never       *)
(* return: sysmon hands their Ps on. Without MsSuffice TLC refutes it: the *)
(* Ps sysmon takes from the two forks wait for an M while the third runs a *)
(* hog (README.md); the Go executor would start an M for each.             *)
(*                                                                         *)
(* WaitReturns: every Wait returns, with no help from sysmon (it may act   *)
(* or not) as long as the hogs return, and with three Ms: a Wait must      *)
(* never hold its P while its group's tasks wait for one.                  *)

MsSuffice == []<>(pend = <<>>)
SysmonFair == WF_vars(Sysmon)
HogsEnd == \A m \in Ms : WF_vars(HogEnd(m))

\* nrun never falls, so this is \A t : <>(nrun[t] >= 1), checked by TLC in one
\* branch instead of one per task.
AllTasksRun ==
    (MsSuffice /\ SysmonFair) => <>(\A t \in Tasks : nrun[t] >= 1)

WaitReturns ==
    HogsEnd =>
        \A t \in Forks : (tpc[t] = InWaitPC(t)) ~> (tpc[t] = WaitedPC(t))
=============================================================================
