------------------------------- MODULE Runnext -------------------------------
(***************************************************************************)
(* runnext.Queue: a P's runnext slot in front of its lfq ring, with one    *)
(* owner, thieves on their last pass (StealHalf with stealNext) and        *)
(* observers calling Empty: runqput (next=true), runqget, runqdrain,       *)
(* runqsteal with runqgrab's stealRunNextG branch and its usleep(3), and   *)
(* runqempty. Each Go method is an action of the same name, the            *)
(* disjunction of its steps, selected by a program counter. Every atomic    *)
(* access of the slot, of its put-time cell putAt and of the counter seq is *)
(* its own step; each operation of the ring is one step, as lfq's are      *)
(* linearizable (Ring.tla checks lfq's own steps one by one). A steal      *)
(* without stealNext is lfq's StealHalf alone, so thieves here always make *)
(* their last pass.                                                        *)
(*                                                                         *)
(* Tasks are the naturals 1..N, made by the owner in order; 0 is the empty *)
(* slot. The clock is abstract: Tick moves it by one, up to MaxClock, at   *)
(* any time; the steal delay is a guard on it. A thief that finds the      *)
(* runnext task too fresh sleeps until clock >= its wake time.             *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    N,         \* the owner makes tasks 1..N
    Delay,     \* the steal delay, in ticks; >= 1
    MaxClock,  \* the clock stops here (a state bound, not a deadline)
    Thieves,   \* the processes that steal (model values)
    Observers, \* the processes that call Empty (model values)
    Mutant     \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each a change inside one step, each with the name of
\* the runnext mutation (runnext/mutation.go) it models:
\*   ThiefIgnoresDelay   StealAge lets the thief on however fresh the task
\*   DisplacedDropped    PutNextSwap drops the task it displaces
\*   TakeWithoutCAS      the owner's take stores 0 instead of a CAS
\*   EmptyMissesRunnext  Empty reads the ring and the slot once, no re-check
Mutants == {"none", "ThiefIgnoresDelay", "DisplacedDropped", "TakeWithoutCAS",
            "EmptyMissesRunnext"}

ASSUME /\ N \in Nat /\ N >= 1
       /\ Delay \in Nat /\ Delay >= 1
       /\ MaxClock \in Nat /\ MaxClock >= Delay
       /\ Thieves # {} /\ Observers # {} /\ Thieves \cap Observers = {}
       /\ Mutant \in Mutants

Tasks == 1..N
Vals  == 0..N      \* what the slot can hold: empty or a task
Odd(n) == n % 2 = 1
Range(s) == {s[i] : i \in DOMAIN s}
Procs == Thieves \cup Observers
Min(a, b) == IF a < b THEN a ELSE b

VARIABLES
    slot, putAt, seq,     \* Slot.task, Slot.putAt, Queue.seq
    ring,                 \* the lfq ring, oldest first
    clock,                \* atomicx.Nanotime
    next,                 \* the next task the owner makes; 1..next-1 are made
    opc, ox, ohand,       \* owner: pc, the slot value it loaded, the task in its hands
    tpc, tx, tseq, twake,  \* thief or observer: pc, loaded slot, loaded seq, wake time
    \* history, for the invariants only
    out,        \* out[v]: times task v left the queue (capped at 2)
    lastStamp,  \* the stamp of lastNext, the only task the slot can hold
    lastNext,   \* the task the owner put in the slot last (0: none yet)
    taken,      \* tasks the owner took from the slot
    stolen,     \* tasks thieves took from the slot
    drainRing,  \* Drain took the slot's task while the ring held tasks
    sawEmpty,   \* sawEmpty[t]: the queue was empty in some state of t's current call
    ringClear,  \* ringClear[t]: since thief t loaded tx[t], some state had the ring
                \* empty, no task on its way to it, and tx[t] in the slot
    emptyLied,  \* an Empty said TRUE though the queue held a task in every state of the call
    stealLied   \* a last-pass StealHalf found nothing though the queue held a task throughout

ownerv == <<opc, ox, ohand>>
thiefv == <<tpc, tx, tseq, twake>>
histv  == <<out, lastStamp, lastNext, taken, stolen, emptyLied, stealLied>>
vars   == <<slot, putAt, seq, ring, clock, next, ownerv, thiefv, histv, drainRing,
           sawEmpty, ringClear>>

Sym == Permutations(Thieves)

OwnerPCs == {"idle", "pn_stamp", "pn_swap", "pn_kick", "pn_even",
             "put_bump", "get_cas", "get_ring",
             "dr_load", "dr_cas", "dr_ring", "dr_even"}
ThiefPCs == {"idle", "s_ring", "s_slot", "s_vlen", "s_vseq", "s_age", "s_sleep",
             "s_par", "s_len", "s_cas", "s_seq",
             "e_seq", "e_len1", "e_slot", "e_len2", "e_seq2"}

(***************************************************************************)
(* What the queue holds (QueuedSeq): the ring, the slot, and a task that   *)
(* PutNext is moving from the slot to the ring. Where a task made is       *)
(* (HeldSeq): those, and the task Drain took from the slot, in the owner's *)
(* hands until it has drained the ring.                                    *)
(***************************************************************************)
InHands   == IF (opc = "pn_kick" \/ opc = "dr_ring") /\ ohand # 0 THEN <<ohand>> ELSE <<>>
SlotSeq   == IF slot # 0 THEN <<slot>> ELSE <<>>
Kicked    == IF opc = "pn_kick" /\ ohand # 0 THEN <<ohand>> ELSE <<>>
Drained   == IF opc = "dr_ring" /\ ohand # 0 /\ drainRing THEN <<ohand>> ELSE <<>>
QueuedSeq == ring \o SlotSeq \o Kicked \o Drained
HeldSeq   == ring \o SlotSeq \o InHands
QEmpty    == QueuedSeq = <<>>

\* Thief t may take tx[t] from the slot now: the ring is empty, no task is
\* on its way to it, and tx[t] is the runnext task.
RingClear(t) == ring = <<>> /\ Kicked = <<>> /\ tx[t] # 0 /\ slot = tx[t]

Init ==
    /\ slot = 0 /\ putAt = 0 /\ seq = 0
    /\ ring = <<>>
    /\ clock = 0
    /\ next = 1
    /\ opc = "idle" /\ ox = 0 /\ ohand = 0
    /\ tpc = [t \in Procs |-> "idle"]
    /\ tx = [t \in Procs |-> 0]
    /\ tseq = [t \in Procs |-> 0]
    /\ twake = [t \in Procs |-> 0]
    /\ out = [v \in Tasks |-> 0]
    /\ lastStamp = 0
    /\ lastNext = 0
    /\ taken = {} /\ stolen = {}
    /\ drainRing = FALSE
    /\ sawEmpty = [t \in Procs |-> FALSE]
    /\ ringClear = [t \in Procs |-> FALSE]
    /\ emptyLied = FALSE /\ stealLied = FALSE

\* The tasks of s leave the queue for good: run by the owner or a thief,
\* queued in a thief's ring, or returned by Drain.
Leave(s) == out' = [v \in Tasks |->
                      Min(2, out[v] + Cardinality({i \in DOMAIN s : s[i] = v}))]

\* The owner returns from an operation; its locals are cleared.
OwnerDone == opc' = "idle" /\ ox' = 0 /\ ohand' = 0

(***************************************************************************)
(* PutNext (runqput, next=true): load the slot; if it holds a task, make   *)
(* seq odd (a displacement is in flight). Stamp putAt with the clock       *)
(* (atomicx.Nanotime and the store: one step), swap the new task in; the   *)
(* displaced task goes to the ring's tail (lfq.Ring.Put), then seq is made *)
(* even again. The stamp is stored before the swap, so a thief that sees   *)
(* the new task reads its stamp or a newer one. (Go skips the stamp when   *)
(* the delay is 0; the model has Delay >= 1.)                              *)
(***************************************************************************)
\* The load of the slot and, if it held a task, the odd bump are one step:
\* until the bump only a thief can act on the slot, and it can only empty
\* it, which leaves the same outcomes as a thief acting just before the load
\* or just after the bump.
PutNextLoad ==
    /\ opc = "idle" /\ next <= N
    /\ ox' = slot
    /\ seq' = IF slot = 0 THEN seq ELSE seq + 1
    /\ opc' = "pn_stamp"
    /\ UNCHANGED <<slot, putAt, ring, clock, next, ohand, thiefv, histv>>

PutNextStamp ==
    /\ opc = "pn_stamp"
    /\ putAt' = clock
    /\ opc' = "pn_swap"
    /\ UNCHANGED <<slot, seq, ring, clock, next, ox, ohand, thiefv, histv>>

PutNextSwap ==
    /\ opc = "pn_swap"
    /\ slot' = next
    /\ lastNext' = next
    /\ lastStamp' = putAt
    /\ next' = next + 1
    /\ IF ox = 0
         THEN OwnerDone                        \* nothing displaced (only the owner fills the slot)
         ELSE IF slot # 0 /\ Mutant # "DisplacedDropped"
         THEN /\ ohand' = slot /\ opc' = "pn_kick" /\ UNCHANGED ox
         ELSE /\ ohand' = 0 /\ opc' = "pn_even" /\ UNCHANGED ox  \* stolen meanwhile, or dropped
    /\ UNCHANGED <<putAt, seq, ring, clock, thiefv, out, taken, stolen,
                   emptyLied, stealLied>>

PutNextKick ==
    /\ opc = "pn_kick"
    /\ ring' = Append(ring, ohand)
    /\ ohand' = 0
    /\ opc' = "pn_even"
    /\ UNCHANGED <<slot, putAt, seq, clock, next, ox, thiefv, histv>>

PutNextEven ==
    /\ opc = "pn_even"
    /\ seq' = seq + 1
    /\ OwnerDone
    /\ UNCHANGED <<slot, putAt, ring, clock, next, thiefv, histv>>

PutNext == PutNextLoad \/ PutNextStamp \/ PutNextSwap
           \/ PutNextKick \/ PutNextEven

(***************************************************************************)
(* Put (runqput, next=false): append to the ring, then seq += 2.           *)
(***************************************************************************)
PutRing ==
    /\ opc = "idle" /\ next <= N
    /\ ring' = Append(ring, next)
    /\ next' = next + 1
    /\ opc' = "put_bump"
    /\ UNCHANGED <<slot, putAt, seq, clock, ox, ohand, thiefv, histv>>

PutBump ==
    /\ opc = "put_bump"
    /\ seq' = seq + 2
    /\ OwnerDone
    /\ UNCHANGED <<slot, putAt, ring, clock, next, thiefv, histv>>

Put == PutRing \/ PutBump

(***************************************************************************)
(* Get (runqget): Take, Slot's part (load the slot; if it holds a task,    *)
(* CAS it to 0, no retry: a failed CAS means a thief took it), then the    *)
(* ring's oldest. TakeWithoutCAS stores 0 whatever the slot holds.         *)
(***************************************************************************)
TakeLoad ==
    /\ opc = "idle"
    /\ ox' = slot
    /\ opc' = IF slot = 0 THEN "get_ring" ELSE "get_cas"
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ohand, thiefv, histv>>

\* The take's CAS (or, mutated, its store): the owner gets ox or nothing.
TakeCAS(success, failure) ==
    IF slot = ox \/ Mutant = "TakeWithoutCAS"
      THEN /\ slot' = 0
           /\ taken' = taken \cup {ox}
           /\ success
      ELSE /\ UNCHANGED <<slot, taken>>
           /\ failure

GetCAS ==
    /\ opc = "get_cas"
    /\ TakeCAS(Leave(<<ox>>) /\ OwnerDone,
               opc' = "get_ring" /\ UNCHANGED <<out, ox, ohand>>)
    /\ UNCHANGED <<putAt, seq, ring, clock, next, thiefv, lastStamp, lastNext, stolen,
                   emptyLied, stealLied>>

GetRing ==
    /\ opc = "get_ring"
    /\ IF ring # <<>>
         THEN Leave(<<Head(ring)>>) /\ ring' = Tail(ring)
         ELSE UNCHANGED <<out, ring>>
    /\ OwnerDone
    /\ UNCHANGED <<slot, putAt, seq, clock, next, thiefv, lastStamp, lastNext, taken,
                   stolen, emptyLied, stealLied>>

Get == TakeLoad \/ GetCAS \/ GetRing

(***************************************************************************)
(* Drain (runqdrain): make seq odd, take the slot's task (as Get does),    *)
(* drain the ring, make seq even. The task taken from the slot is in the   *)
(* owner's hands until the ring is drained: Drain takes effect there.      *)
(***************************************************************************)
DrainOdd ==
    /\ opc = "idle" /\ ~QEmpty                 \* (draining an empty queue only moves seq)
    /\ seq' = seq + 1
    /\ opc' = "dr_load"
    /\ UNCHANGED <<slot, putAt, ring, clock, next, ox, ohand, thiefv, histv>>

DrainLoad ==
    /\ opc = "dr_load"
    /\ ox' = slot
    /\ opc' = IF slot = 0 THEN "dr_ring" ELSE "dr_cas"
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ohand, thiefv, histv>>

DrainCAS ==
    /\ opc = "dr_cas"
    /\ TakeCAS(ohand' = ox /\ opc' = "dr_ring" /\ UNCHANGED ox,
               opc' = "dr_ring" /\ UNCHANGED <<ox, ohand>>)
    /\ UNCHANGED <<putAt, seq, ring, clock, next, thiefv, out, lastStamp, lastNext,
                   stolen, emptyLied, stealLied>>

DrainRing ==
    /\ opc = "dr_ring"
    /\ Leave(InHands \o ring)
    /\ ring' = <<>>
    /\ ohand' = 0 /\ ox' = 0
    /\ opc' = "dr_even"
    /\ UNCHANGED <<slot, putAt, seq, clock, next, thiefv, lastStamp, lastNext, taken,
                   stolen, emptyLied, stealLied>>

DrainEven ==
    /\ opc = "dr_even"
    /\ seq' = seq + 1
    /\ OwnerDone
    /\ UNCHANGED <<slot, putAt, ring, clock, next, thiefv, histv>>

Drain == DrainOdd \/ DrainLoad \/ DrainCAS \/ DrainRing \/ DrainEven

(***************************************************************************)
(* StealHalf(t) (runqsteal + runqgrab), the last pass: load seq, steal     *)
(* half of the ring, rounded up (one step: lfq.Ring.StealHalf). If the     *)
(* ring gave nothing, load the slot:                                       *)
(*   - empty: the queue is empty only if seq was even, the ring is still    *)
(*     empty and seq has not moved (StealVerify); otherwise start over;    *)
(*   - a task: read putAt and the clock (one step); if the task has not sat *)
(*     for Delay, sleep until it has and start over; then wait while seq is *)
(*     odd, check the ring is still empty, and CAS the task out of the     *)
(*     slot; on any failure start over ("s_seq", the loop's top).          *)
(* A thief's own ring is abstracted away: what it steals leaves the model. *)
(***************************************************************************)
ThiefGo(t, pc) == tpc' = [tpc EXCEPT ![t] = pc]

ThiefReturn(t) ==
    /\ ThiefGo(t, "idle")
    /\ tx' = [tx EXCEPT ![t] = 0]
    /\ tseq' = [tseq EXCEPT ![t] = 0]
    /\ twake' = [twake EXCEPT ![t] = 0]

StealStart(t) ==
    /\ tpc[t] = "idle"
    /\ tseq' = [tseq EXCEPT ![t] = seq]
    /\ ThiefGo(t, "s_ring")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, twake, histv>>

StealSeq(t) ==                                 \* the loop's top: load seq again
    /\ tpc[t] = "s_seq"
    /\ tseq' = [tseq EXCEPT ![t] = seq]
    /\ ThiefGo(t, "s_ring")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, twake, histv>>

StealRing(t) ==
    /\ tpc[t] = "s_ring"
    /\ IF ring # <<>>
         THEN LET k == Len(ring) - Len(ring) \div 2 IN
              /\ Leave(SubSeq(ring, 1, k))
              /\ ring' = SubSeq(ring, k + 1, Len(ring))
              /\ ThiefReturn(t)
         ELSE /\ UNCHANGED <<ring, out>>
              /\ ThiefGo(t, "s_slot") /\ UNCHANGED <<tx, tseq, twake>>
    /\ UNCHANGED <<slot, putAt, seq, clock, next, ownerv, lastStamp, lastNext, taken,
                   stolen, emptyLied, stealLied>>

StealSlot(t) ==
    /\ tpc[t] = "s_slot"
    /\ tx' = [tx EXCEPT ![t] = slot]
    /\ ThiefGo(t, IF slot # 0 THEN "s_age" ELSE IF Odd(tseq[t]) THEN "s_seq" ELSE "s_vlen")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tseq, twake, histv>>

StealVerifyLen(t) ==
    /\ tpc[t] = "s_vlen"
    /\ ThiefGo(t, IF ring = <<>> THEN "s_vseq" ELSE "s_seq")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, twake, histv>>

StealVerifySeq(t) ==
    /\ tpc[t] = "s_vseq"
    /\ IF seq = tseq[t]
         THEN /\ ThiefReturn(t)                \* nothing to steal
              /\ stealLied' = (stealLied \/ ~sawEmpty[t])
         ELSE /\ ThiefGo(t, "s_seq")
              /\ UNCHANGED <<tx, tseq, twake, stealLied>>
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, out, lastStamp, lastNext,
                   taken, stolen, emptyLied>>

StealAge(t) ==                                 \* remaining = putAt + Delay - clock
    /\ tpc[t] = "s_age"
    /\ IF putAt + Delay <= clock \/ Mutant = "ThiefIgnoresDelay"
         THEN ThiefGo(t, "s_par") /\ UNCHANGED twake
         ELSE /\ twake' = [twake EXCEPT ![t] = putAt + Delay]
              /\ ThiefGo(t, "s_sleep")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, histv>>

StealSleep(t) ==                               \* atomicx.Sleep(remaining) returns
    /\ tpc[t] = "s_sleep" /\ clock >= twake[t]
    /\ ThiefGo(t, "s_seq")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, twake, histv>>

StealParity(t) ==                              \* odd: awaitOwner, start over
    /\ tpc[t] = "s_par"
    /\ ThiefGo(t, IF Odd(seq) THEN "s_seq" ELSE "s_len")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, twake, histv>>

StealRecheck(t) ==                             \* the owner put work in the ring: steal that
    /\ tpc[t] = "s_len"
    /\ ThiefGo(t, IF ring = <<>> THEN "s_cas" ELSE "s_seq")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, twake, histv>>

StealCAS(t) ==
    /\ tpc[t] = "s_cas"
    /\ IF slot = tx[t]
         THEN /\ slot' = 0
              /\ Leave(<<tx[t]>>)
              /\ stolen' = stolen \cup {tx[t]}
              /\ ThiefReturn(t)
         ELSE /\ ThiefGo(t, "s_seq")
              /\ UNCHANGED <<slot, out, stolen, tx, tseq, twake>>
    /\ UNCHANGED <<putAt, seq, ring, clock, next, ownerv, lastStamp, lastNext, taken,
                   emptyLied, stealLied>>

StealHalf(t) ==
    \/ StealStart(t) \/ StealSeq(t) \/ StealRing(t) \/ StealSlot(t)
    \/ StealVerifyLen(t) \/ StealVerifySeq(t) \/ StealAge(t) \/ StealSleep(t)
    \/ StealParity(t) \/ StealRecheck(t) \/ StealCAS(t)

(***************************************************************************)
(* Empty(t) (runqempty): load seq (odd: wait for the owner), the ring's    *)
(* length, the slot, the ring's length again, seq again: TRUE only if all  *)
(* read empty and seq did not move; if it moved, look again.               *)
(* EmptyMissesRunnext reads the ring and the slot once and answers.        *)
(***************************************************************************)
EmptySeq(t) ==
    /\ \/ tpc[t] = "e_seq"
       \/ tpc[t] = "idle" /\ Mutant # "EmptyMissesRunnext"
    /\ tseq' = [tseq EXCEPT ![t] = seq]
    /\ ThiefGo(t, IF Odd(seq) THEN "e_seq" ELSE "e_len1")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, twake, histv>>

EmptyStartMutant(t) ==                         \* EmptyMissesRunnext: no seq
    /\ tpc[t] = "idle" /\ Mutant = "EmptyMissesRunnext"
    /\ ThiefGo(t, "e_len1")
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, tx, tseq, twake, histv>>

EmptyLen1(t) ==
    /\ tpc[t] = "e_len1"
    /\ IF ring # <<>> THEN ThiefReturn(t)      \* FALSE
                      ELSE ThiefGo(t, "e_slot") /\ UNCHANGED <<tx, tseq, twake>>
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, histv>>

EmptySlot(t) ==
    /\ tpc[t] = "e_slot"
    /\ IF slot # 0
         THEN ThiefReturn(t) /\ UNCHANGED emptyLied   \* FALSE
         ELSE IF Mutant = "EmptyMissesRunnext"
         THEN ThiefReturn(t) /\ emptyLied' = (emptyLied \/ ~sawEmpty[t])   \* TRUE
         ELSE ThiefGo(t, "e_len2") /\ UNCHANGED <<tx, tseq, twake, emptyLied>>
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, out, lastStamp, lastNext,
                   taken, stolen, stealLied>>

EmptyLen2(t) ==
    /\ tpc[t] = "e_len2"
    /\ IF ring # <<>> THEN ThiefReturn(t)      \* FALSE
                      ELSE ThiefGo(t, "e_seq2") /\ UNCHANGED <<tx, tseq, twake>>
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, histv>>

EmptySeq2(t) ==
    /\ tpc[t] = "e_seq2"
    /\ IF seq = tseq[t]
         THEN ThiefReturn(t) /\ emptyLied' = (emptyLied \/ ~sawEmpty[t])   \* TRUE
         ELSE ThiefGo(t, "e_seq") /\ UNCHANGED <<tx, tseq, twake, emptyLied>>
    /\ UNCHANGED <<slot, putAt, seq, ring, clock, next, ownerv, out, lastStamp, lastNext,
                   taken, stolen, stealLied>>

Empty(t) == EmptySeq(t) \/ EmptyStartMutant(t) \/ EmptyLen1(t) \/ EmptySlot(t)
            \/ EmptyLen2(t) \/ EmptySeq2(t)

(***************************************************************************)
(* The clock: atomicx.Nanotime moves on by itself.                          *)
(***************************************************************************)
Tick ==
    /\ clock < MaxClock
    /\ clock' = clock + 1
    /\ UNCHANGED <<slot, putAt, seq, ring, next, ownerv, thiefv, histv>>

Step ==
    \/ PutNext \/ Put \/ Get \/ Drain
    \/ \E t \in Thieves : StealHalf(t)
    \/ \E t \in Observers : Empty(t)
    \/ Tick

\* The history that follows every step. sawEmpty: for a process inside a
\* call, whether the queue was empty in some state since the call began
\* (its first step included). ringClear: for a thief that has loaded the
\* slot and goes on towards its CAS, whether RingClear held in some state
\* since the load.
Next ==
    /\ Step
    /\ drainRing' = IF opc = "dr_cas" /\ opc' = "dr_ring" THEN ring # <<>>
                     ELSE opc' = "dr_ring" /\ drainRing
    /\ sawEmpty' = [t \in Procs |->
                      IF tpc'[t] = "idle" THEN FALSE
                      ELSE (IF tpc[t] = "idle" THEN QEmpty ELSE sawEmpty[t]) \/ QEmpty']
    /\ ringClear' = [t \in Procs |->
                       IF tpc'[t] \notin {"s_age", "s_par", "s_len", "s_cas"} THEN FALSE
                       ELSE (tpc[t] # "s_slot" /\ ringClear[t]) \/ RingClear(t)']

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* View: what TLC fingerprints. States with the same view have the same     *)
(* futures and the same invariants, so TLC explores one of them:           *)
(*   - seq only grows and is only compared for equality with a value a     *)
(*     reader loaded, or tested for oddness: the view keeps its parity and, *)
(*     for a reader that will still use its loaded value, that value's     *)
(*     parity and whether seq has moved since;                             *)
(*   - a thief's loaded slot value and wake time, while it will use them;  *)
(*   - taken and stolen through their intersection: a task leaves the slot *)
(*     at most once for good, so only a task in both matters;              *)
(*   - lastStamp while the slot holds lastNext (the only time it is read), *)
(*     and it and putAt only until they have aged: the clock only grows,   *)
(*     so an aged stamp stays aged, and that is all anyone reads of it;    *)
(*   - a sleeping thief's wake time until the clock reaches it.            *)
(***************************************************************************)
UsesSeq(t) == tpc[t] \in {"s_ring", "s_slot", "s_vlen", "s_vseq", "e_len1", "e_slot", "e_len2", "e_seq2"}
UsesTx(t)  == tpc[t] \in {"s_age", "s_par", "s_len", "s_cas"}
Aged(stamp) == stamp + Delay <= clock
View ==
    <<slot, IF Aged(putAt) THEN "aged" ELSE putAt, seq % 2, ring, clock, next, ownerv,
      [t \in Procs |-> <<tpc[t],
                         IF UsesSeq(t) THEN <<tseq[t] % 2, tseq[t] = seq>> ELSE <<>>,
                         IF UsesTx(t) THEN tx[t] ELSE 0,
                         IF tpc[t] = "s_sleep" /\ clock < twake[t] THEN twake[t] ELSE 0,
                         sawEmpty[t]>>],
      out, lastNext, IF slot # 0 /\ ~Aged(lastStamp) THEN lastStamp ELSE "aged", taken \cap stolen,
      emptyLied, stealLied, drainRing, ringClear>>

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ slot \in Vals /\ putAt \in 0..MaxClock /\ seq \in Nat
    /\ ring \in Seq(Tasks) /\ Len(ring) <= N
    /\ clock \in 0..MaxClock
    /\ next \in 1..(N + 1)
    /\ opc \in OwnerPCs /\ ox \in Vals /\ ohand \in Vals
    /\ tpc \in [Procs -> ThiefPCs]
    /\ tx \in [Procs -> Vals] /\ tseq \in [Procs -> Nat]
    /\ twake \in [Procs -> 0..(MaxClock + Delay)]
    /\ out \in [Tasks -> 0..2] /\ lastStamp \in 0..MaxClock
    /\ lastNext \in Vals /\ taken \subseteq Tasks /\ stolen \subseteq Tasks
    /\ sawEmpty \in [Procs -> BOOLEAN]
    /\ emptyLied \in BOOLEAN /\ stealLied \in BOOLEAN

\* The owner's take and a thief's steal never both get a task.
NeverTakenAndStolen == taken \cap stolen = {}

\* Every task made is in exactly one place: the ring, the slot, the owner's
\* hands (on its way to the ring, or drained), or gone for good, once.
\* Nothing else is anywhere.
Conservation ==
    \A v \in Tasks :
        Cardinality({i \in DOMAIN HeldSeq : HeldSeq[i] = v}) + out[v]
            = IF v < next THEN 1 ELSE 0

\* A thief about to take the runnext task by its CAS (the CAS succeeds if
\* the slot still holds it) does so only after the task sat for the delay.
StealAfterDelay ==
    \A t \in Thieves :
        tpc[t] = "s_cas" /\ tx[t] # 0 /\ slot = tx[t] => clock - lastStamp >= Delay

\* A thief takes the runnext task only if, since it loaded it, the ring was
\* empty with no task on its way there at some instant while the task sat in
\* the slot: the runnext task goes to a thief only when the ring gives
\* nothing (runqgrab's n == 0).
RunnextOnlyWhenRingClear ==
    \A t \in Thieves :
        tpc[t] = "s_cas" /\ tx[t] # 0 /\ slot = tx[t] => ringClear[t]

\* LIFO: the slot holds only the task put last; a task displaced from it
\* goes behind the ring; the owner's take gets the newest task.
LIFOSlot ==
    /\ slot # 0 => slot = lastNext
    /\ lastNext # 0 => lastNext \notin Range(ring)
    /\ opc = "pn_kick" => ohand # lastNext
    /\ opc = "get_cas" /\ slot = ox => ox = lastNext

\* Empty says TRUE only if the queue was empty at some instant of the call.
EmptyOnlyWhenEmpty == ~emptyLied

\* A last-pass StealHalf comes back empty-handed only if the queue was
\* empty at some instant of the call.
StealNothingOnlyWhenEmpty == ~stealLied
=============================================================================
