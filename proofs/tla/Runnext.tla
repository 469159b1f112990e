------------------------------- MODULE Runnext -------------------------------
(***************************************************************************)
(* runnext.Queue: a P's runnext slot in front of its lfq ring, with one    *)
(* owner, thieves on their last pass (StealHalf with stealNext) and        *)
(* observers calling Empty: runqput (next=true), runqget, runqdrain,       *)
(* runqsteal with runqgrab's stealRunNextG branch and its usleep(3), and   *)
(* runqempty. Each Go method is an action of the same name, the            *)
(* disjunction of its steps, selected by a program counter. Every atomic    *)
(* access of the slot (its version ver and its task cell), of the counter  *)
(* seq and of the ring's head and tail by Len is its own step; the ring's  *)
(* other operations are one step each, as lfq's are linearizable           *)
(* (Ring.tla checks lfq's own steps one by one). A steal without stealNext *)
(* is lfq's StealHalf alone, so thieves here always make their last pass.  *)
(*                                                                         *)
(* The slot is a version, odd while it holds a task and one more at every  *)
(* fill and every take, and a task cell the owner writes before it         *)
(* publishes a fill. The owner reads no clock: a thief that finds a task   *)
(* notes its version, sleeps Delay ticks and takes it only by a CAS from   *)
(* that version, so a task the owner took and put back (the same task, a   *)
(* new version) costs a new wait.                                          *)
(*                                                                         *)
(* Tasks are the naturals 1..N, made by the owner in order; 0 is no task.  *)
(* The owner may also put back, up to Reputs times, the task its last Get  *)
(* took from the slot (a task spawning itself again: the same pointer).    *)
(* The clock is abstract: Tick moves it by one, up to MaxClock, at any     *)
(* time. A thief sleeps until clock >= its wake time.                      *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    N,         \* the owner makes tasks 1..N
    Reputs,    \* how many times the owner may put back a task it took from the slot
    FineLen,   \* TRUE: the ring's Len is its three loads; FALSE: one step (see Len3)
    Delay,     \* the steal delay, in ticks; >= 1
    MaxClock,  \* the clock stops here (a state bound, not a deadline)
    Thieves,   \* the processes that steal (model values)
    Observers, \* the processes that call Empty (model values)
    Mutant     \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each a change inside one step. All but the last have
\* the name of a runnext mutation (runnext/mutation.go) and model it:
\*   ThiefIgnoresDelay     StealObserve goes on to the CAS without sleeping
\*   DisplacedDropped      PutNextPublish forgets the task it displaced
\*   TakeWithoutCAS        the owner's take stores ver+1 instead of a CAS
\*   EmptyMissesRunnext    Empty reads the ring and the slot once, no re-check
\*   ThiefNoRecheck        after one wait a thief takes whatever occupies the slot
\*   ThiefComparesPointer  after one wait a thief compares the task, not the version
\*   GetTreatsOneAsEmpty   Get's ring part returns nothing from a ring of one
Mutants == {"none", "ThiefIgnoresDelay", "DisplacedDropped", "TakeWithoutCAS",
            "EmptyMissesRunnext", "ThiefNoRecheck", "ThiefComparesPointer",
            "GetTreatsOneAsEmpty"}

ASSUME /\ N \in Nat /\ N >= 1
       /\ Reputs \in Nat /\ FineLen \in BOOLEAN
       /\ Delay \in Nat /\ Delay >= 1
       /\ MaxClock \in Nat /\ MaxClock >= Delay
       /\ Thieves # {} /\ Observers # {} /\ Thieves \cap Observers = {}
       /\ Mutant \in Mutants

Tasks == 1..N
Vals  == 0..N      \* what the task cell can hold: no task or a task
Odd(n) == n % 2 = 1
Range(s) == {s[i] : i \in DOMAIN s}
Procs == Thieves \cup Observers
Min(a, b) == IF a < b THEN a ELSE b
MaxVer == 2 * (N + Reputs)   \* fills and takes, at most one take per fill

VARIABLES
    ver, task,            \* Slot.ver, Slot.task
    seq,                  \* Queue.seq
    ring, rhead, rtail,   \* the lfq ring, oldest first, and its head and tail counters
    clock,                \* atomicx.Nanotime
    next,                 \* the next task the owner makes; 1..next-1 are made
    reputs,               \* how many put-backs the owner has made
    opc, ov, onew, ohand, ogot, \* owner: pc, loaded ver, the task it puts, the task in its
                          \* hands (displaced or drained), the task its last Get took from the slot
    tpc, tv, tx, tw, twake, tseq, lt, lh,
        \* thief or observer: pc, loaded ver, task read, the version it waited for,
        \* wake time, loaded seq, Len's loaded tail and head
    \* history, for the invariants only
    tobsv, tobs,  \* the version a thief's last wait began with, and the clock then
    out,        \* out[v]: times task v left the queue for good (capped at 2)
    lastNext,   \* the task the owner put in the slot last (0: none yet)
    taken,      \* versions (occupancies) the owner took from the slot
    stolen,     \* versions thieves took from the slot
    drainRing,  \* Drain took the slot's task while the ring held tasks
    osaw,       \* the queue was empty in some state of the owner's current call
    sawEmpty,   \* sawEmpty[t]: the same for process t's current call
    ringClear,  \* ringClear[t]: since thief t loaded the version it goes on to CAS, some
                \* state had the ring empty, no task on its way to it, and that version
    emptyLied,  \* an Empty said TRUE though the queue held a task in every state of the call
    stealLied,  \* a last-pass StealHalf found nothing though the queue held a task throughout
    getLied     \* a Get returned nothing though the queue held a task throughout

slotv  == <<ver, task>>
ringv  == <<ring, rhead, rtail>>
ownerv == <<next, reputs, opc, ov, onew, ohand, ogot>>
thiefv == <<tpc, tv, tx, tw, twake, tseq, lt, lh, tobsv, tobs>>
histv  == <<out, lastNext, taken, stolen, emptyLied, stealLied, getLied>>
vars   == <<slotv, seq, ringv, clock, ownerv, thiefv, histv, drainRing, osaw,
           sawEmpty, ringClear>>

Sym == Permutations(Thieves)

OwnerPCs == {"idle", "pn_take", "pn_store", "pn_pub", "pn_kick", "pn_even",
             "put_bump", "get_cas", "get_ring",
             "dr_load", "dr_cas", "dr_ring", "dr_even"}
ThiefPCs == {"idle", "s_ring", "s_slot", "s_task", "s_ptr", "s_sleep", "s_seq",
             "s_par", "s_len1", "s_len2", "s_len3", "s_cas",
             "s_vlen1", "s_vlen2", "s_vlen3", "s_vseq",
             "e_seq", "e_len1", "e_len2", "e_len3", "e_slot",
             "e_len4", "e_len5", "e_len6", "e_seq2"}

(***************************************************************************)
(* What the queue holds (QueuedSeq): the ring, the slot's task while ver   *)
(* is odd, and a task on its way from the slot to the ring. Where a task   *)
(* made is (HeldSeq): those, and the task Drain took from the slot, in the *)
(* owner's hands until it has drained the ring.                            *)
(***************************************************************************)
Moving    == opc \in {"pn_store", "pn_pub", "pn_kick"}
InHands   == IF (Moving \/ opc = "dr_ring") /\ ohand # 0 THEN <<ohand>> ELSE <<>>
SlotSeq   == IF Odd(ver) THEN <<task>> ELSE <<>>
Kicked    == IF Moving /\ ohand # 0 THEN <<ohand>> ELSE <<>>
Drained   == IF opc = "dr_ring" /\ ohand # 0 /\ drainRing THEN <<ohand>> ELSE <<>>
QueuedSeq == ring \o SlotSeq \o Kicked \o Drained
HeldSeq   == ring \o SlotSeq \o InHands
QEmpty    == QueuedSeq = <<>>

\* Thief t may take the occupancy tv[t] now: the ring is empty, no task is
\* on its way to it, and the slot still holds that occupancy.
RingClear(t) == ring = <<>> /\ Kicked = <<>> /\ Odd(tv[t]) /\ ver = tv[t]

Init ==
    /\ ver = 0 /\ task = 0 /\ seq = 0
    /\ ring = <<>> /\ rhead = 0 /\ rtail = 0
    /\ clock = 0
    /\ next = 1 /\ reputs = 0
    /\ opc = "idle" /\ ov = 0 /\ onew = 0 /\ ohand = 0 /\ ogot = 0
    /\ tpc = [t \in Procs |-> "idle"]
    /\ tv = [t \in Procs |-> 0] /\ tx = [t \in Procs |-> 0] /\ tw = [t \in Procs |-> 0]
    /\ twake = [t \in Procs |-> 0] /\ tseq = [t \in Procs |-> 0]
    /\ lt = [t \in Procs |-> 0] /\ lh = [t \in Procs |-> 0]
    /\ tobsv = [t \in Procs |-> 0] /\ tobs = [t \in Procs |-> 0]
    /\ out = [v \in Tasks |-> 0]
    /\ lastNext = 0
    /\ taken = {} /\ stolen = {}
    /\ drainRing = FALSE
    /\ osaw = FALSE
    /\ sawEmpty = [t \in Procs |-> FALSE]
    /\ ringClear = [t \in Procs |-> FALSE]
    /\ emptyLied = FALSE /\ stealLied = FALSE /\ getLied = FALSE

\* The tasks of s leave the queue for good: run by the owner or a thief,
\* queued in a thief's ring, or returned by Drain.
Leave(s) == out' = [v \in Tasks |->
                      Min(2, out[v] + Cardinality({i \in DOMAIN s : s[i] = v}))]

\* The owner returns from an operation; its locals are cleared.
OwnerDone == opc' = "idle" /\ ov' = 0 /\ onew' = 0 /\ ohand' = 0

(***************************************************************************)
(* PutNext (runqput, next=true): load ver. Odd: make seq odd (a            *)
(* displacement is in flight) and take the old task (CAS ver from odd to   *)
(* even; if it fails a thief took it). Then store the new task in the cell *)
(* and publish it (CAS ver from even to odd: only the owner fills, so it   *)
(* succeeds). A displaced task goes to the ring's tail (lfq.Ring.Put),     *)
(* then seq is made even again. The new task is the next one made, or the  *)
(* one the owner's Get just took from the slot, put back (ogot: a put-back *)
(* follows that Get at once or never).                                     *)
(***************************************************************************)
\* The load of ver and, if odd, the odd bump of seq are one step: until the
\* bump only a thief can act on the slot, and it can only take, which reaches
\* the same states as a thief taking just before the load (seq then moves by
\* 2 in Go and not here: a reader that compared seq only retries in Go).
PutNextLoad ==
    /\ opc = "idle"
    /\ \/ next <= N /\ onew' = next
       \/ ogot # 0 /\ onew' = ogot
    /\ ov' = ver
    /\ seq' = IF Odd(ver) THEN seq + 1 ELSE seq
    /\ opc' = IF Odd(ver) THEN "pn_take" ELSE "pn_store"
    /\ ogot' = 0
    /\ UNCHANGED <<slotv, ringv, clock, next, reputs, ohand, thiefv, histv>>

\* The owner's take (Slot.take): it reads the cell (only it writes the cell,
\* so the read is part of this step) and CASes ver; TakeWithoutCAS stores.
\* TakeCAS(success, failure): the owner took (ov, task) or nothing.
TakeCAS(success, failure) ==
    IF ver = ov \/ Mutant = "TakeWithoutCAS"
      THEN /\ ver' = ov + 1
           /\ taken' = taken \cup {ov}
           /\ success
      ELSE /\ UNCHANGED <<ver, taken>>
           /\ failure

PutNextTake ==
    /\ opc = "pn_take"
    /\ TakeCAS(ohand' = task, ohand' = 0)
    /\ ov' = ov + 1
    /\ opc' = "pn_store"
    /\ UNCHANGED <<task, seq, ringv, clock, next, reputs, onew, ogot, thiefv, out,
                   lastNext, stolen, emptyLied, stealLied, getLied>>

PutNextStore ==
    /\ opc = "pn_store"
    /\ task' = onew
    /\ opc' = "pn_pub"
    /\ UNCHANGED <<ver, seq, ringv, clock, next, reputs, ov, onew, ohand, ogot, thiefv, histv>>

\* The publishing CAS. A put-back task re-enters the queue here.
PutNextPublish ==
    /\ opc = "pn_pub"
    /\ ver = ov                                \* only the owner fills (LIFOSlot asserts it)
    /\ ver' = ov + 1
    /\ lastNext' = onew
    /\ IF onew = next
         THEN next' = next + 1 /\ UNCHANGED <<reputs, out>>
         ELSE /\ reputs' = reputs + 1 /\ UNCHANGED next
              /\ out' = [out EXCEPT ![onew] = @ - 1]
    /\ IF ohand # 0 /\ Mutant # "DisplacedDropped"
         THEN opc' = "pn_kick" /\ UNCHANGED <<ov, onew, ohand>>
         ELSE IF Odd(seq)
         THEN opc' = "pn_even" /\ ohand' = 0 /\ UNCHANGED <<ov, onew>>  \* stolen meanwhile, or dropped
         ELSE OwnerDone                        \* nothing was displaced
    /\ UNCHANGED <<task, seq, ringv, clock, ogot, thiefv, taken, stolen, emptyLied,
                   stealLied, getLied>>

PutNextKick ==
    /\ opc = "pn_kick"
    /\ ring' = Append(ring, ohand) /\ rtail' = rtail + 1
    /\ ohand' = 0
    /\ opc' = "pn_even"
    /\ UNCHANGED <<slotv, seq, rhead, clock, next, reputs, ov, onew, ogot, thiefv, histv>>

PutNextEven ==
    /\ opc = "pn_even"
    /\ seq' = seq + 1
    /\ OwnerDone
    /\ UNCHANGED <<slotv, ringv, clock, next, reputs, ogot, thiefv, histv>>

PutNext == PutNextLoad \/ PutNextTake \/ PutNextStore \/ PutNextPublish
           \/ PutNextKick \/ PutNextEven

(***************************************************************************)
(* Put (runqput, next=false): append to the ring, then seq += 2.           *)
(***************************************************************************)
PutRing ==
    /\ opc = "idle" /\ next <= N
    /\ ring' = Append(ring, next) /\ rtail' = rtail + 1
    /\ next' = next + 1
    /\ opc' = "put_bump"
    /\ ogot' = 0
    /\ UNCHANGED <<slotv, seq, rhead, clock, reputs, ov, onew, ohand, thiefv, histv>>

PutBump ==
    /\ opc = "put_bump"
    /\ seq' = seq + 2
    /\ OwnerDone
    /\ UNCHANGED <<slotv, ringv, clock, next, reputs, ogot, thiefv, histv>>

Put == PutRing \/ PutBump

(***************************************************************************)
(* Get (runqget): load ver; if odd, take (read the cell and CAS ver; no    *)
(* retry: a failed CAS means a thief took it); else, or if the take        *)
(* failed, the ring's oldest.                                              *)
(***************************************************************************)
TakeLoad ==
    /\ opc = "idle"
    /\ ov' = ver
    /\ opc' = IF Odd(ver) THEN "get_cas" ELSE "get_ring"
    /\ ogot' = 0
    /\ UNCHANGED <<slotv, seq, ringv, clock, next, reputs, onew, ohand, thiefv, histv>>

GetCAS ==
    /\ opc = "get_cas"
    /\ TakeCAS(Leave(<<task>>) /\ ogot' = (IF reputs < Reputs THEN task ELSE 0) /\ OwnerDone,
               opc' = "get_ring" /\ UNCHANGED <<out, ogot, ov, onew, ohand>>)
    /\ UNCHANGED <<task, seq, ringv, clock, next, reputs, thiefv, lastNext, stolen,
                   emptyLied, stealLied, getLied>>

GetRing ==
    /\ opc = "get_ring"
    /\ IF ring # <<>> /\ ~(Mutant = "GetTreatsOneAsEmpty" /\ Len(ring) = 1)
         THEN /\ Leave(<<Head(ring)>>) /\ ring' = Tail(ring) /\ rhead' = rhead + 1
              /\ UNCHANGED getLied
         ELSE /\ UNCHANGED <<out, ring, rhead>>
              /\ getLied' = (getLied \/ ~osaw)   \* nothing: the queue must have been empty
    /\ ogot' = 0
    /\ OwnerDone
    /\ UNCHANGED <<slotv, seq, rtail, clock, next, reputs, thiefv, lastNext, taken,
                   stolen, emptyLied, stealLied>>

Get == TakeLoad \/ GetCAS \/ GetRing

(***************************************************************************)
(* Drain (runqdrain): make seq odd, take the slot's task (as Get does),    *)
(* clear the cell and drain the ring, make seq even. The task taken from   *)
(* the slot is in the owner's hands until it has drained the ring: Drain   *)
(* takes effect there.                                                     *)
(***************************************************************************)
DrainOdd ==
    /\ opc = "idle" /\ ~QEmpty                 \* (draining an empty queue only moves seq)
    /\ seq' = seq + 1
    /\ opc' = "dr_load"
    /\ ogot' = 0
    /\ UNCHANGED <<slotv, ringv, clock, next, reputs, ov, onew, ohand, thiefv, histv>>

DrainLoad ==
    /\ opc = "dr_load"
    /\ ov' = ver
    /\ opc' = IF Odd(ver) THEN "dr_cas" ELSE "dr_ring"
    /\ UNCHANGED <<slotv, seq, ringv, clock, next, reputs, onew, ohand, ogot, thiefv, histv>>

DrainCAS ==
    /\ opc = "dr_cas"
    /\ TakeCAS(ohand' = task, ohand' = 0)
    /\ opc' = "dr_ring"
    /\ UNCHANGED <<task, seq, ringv, clock, next, reputs, ov, onew, ogot, thiefv, out,
                   lastNext, stolen, emptyLied, stealLied, getLied>>

\* The cell's clearing and the ring's drain are one step: a thief that reads
\* the cell between them has loaded a version the owner's take moved past,
\* so its CAS fails whatever it read.
DrainRing ==
    /\ opc = "dr_ring"
    /\ Leave(InHands \o ring)
    /\ task' = 0
    /\ ring' = <<>> /\ rhead' = rtail
    /\ ohand' = 0 /\ ov' = 0
    /\ opc' = "dr_even"
    /\ UNCHANGED <<ver, seq, rtail, clock, next, reputs, onew, ogot, thiefv, lastNext, taken,
                   stolen, emptyLied, stealLied, getLied>>

DrainEven ==
    /\ opc = "dr_even"
    /\ seq' = seq + 1
    /\ OwnerDone
    /\ UNCHANGED <<slotv, ringv, clock, next, reputs, ogot, thiefv, histv>>

Drain == DrainOdd \/ DrainLoad \/ DrainCAS \/ DrainRing \/ DrainEven

(***************************************************************************)
(* StealHalf(t) (runqsteal + runqgrab), the last pass: load seq, steal     *)
(* half of the ring, rounded up (one step: lfq.Ring.StealHalf). If the     *)
(* ring gave nothing, load ver:                                            *)
(*   - even: the queue is empty only if seq was even, the ring's Len is    *)
(*     still 0 and seq has not moved (StealVerify); otherwise start over;  *)
(*   - odd, a version it has not waited for: read the cell, sleep Delay    *)
(*     and start over (StealObserve, StealSleep);                          *)
(*   - odd, the version it waited for: wait while seq is odd, check the    *)
(*     ring's Len is 0, and CAS ver from that version: on any failure      *)
(*     start over ("s_seq", the loop's top). It returns the task it read.  *)
(* Len (lfq.Ring.Len) is three steps: load tail, load head, load tail      *)
(* again; if tail moved, again from the start.                             *)
(* A thief's own ring is abstracted away: what it steals leaves the model. *)
(***************************************************************************)
ThiefGo(t, pc) == tpc' = [tpc EXCEPT ![t] = pc]
Set(f, t, x) == f' = [f EXCEPT ![t] = x]

ThiefReturn(t) ==
    /\ ThiefGo(t, "idle")
    /\ Set(tv, t, 0) /\ Set(tx, t, 0) /\ Set(tw, t, 0) /\ Set(twake, t, 0)
    /\ Set(tseq, t, 0) /\ Set(lt, t, 0) /\ Set(lh, t, 0)
    /\ Set(tobsv, t, 0) /\ Set(tobs, t, 0)

\* Every step below that does not say otherwise leaves these alone.
ThiefKeep == <<tv, tx, tw, twake, tseq, lt, lh, tobsv, tobs>>

StealStart(t) ==
    /\ tpc[t] \in {"idle", "s_seq"}
    /\ Set(tseq, t, seq)
    /\ ThiefGo(t, "s_ring")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tx, tw, twake, lt, lh, tobsv, tobs, histv>>

StealRing(t) ==
    /\ tpc[t] = "s_ring"
    /\ IF ring # <<>>
         THEN LET k == Len(ring) - Len(ring) \div 2 IN
              /\ Leave(SubSeq(ring, 1, k))
              /\ ring' = SubSeq(ring, k + 1, Len(ring)) /\ rhead' = rhead + k
              /\ ThiefReturn(t)
         ELSE /\ UNCHANGED <<ring, rhead, out>>
              /\ ThiefGo(t, "s_slot") /\ UNCHANGED ThiefKeep
    /\ UNCHANGED <<slotv, seq, rtail, clock, ownerv, lastNext, taken, stolen,
                   emptyLied, stealLied, getLied>>

\* The load of ver, and where it leads.
StealSlot(t) ==
    /\ tpc[t] = "s_slot"
    /\ Set(tv, t, ver)
    /\ ThiefGo(t, CASE ~Odd(ver) -> IF Odd(tseq[t]) THEN "s_seq" ELSE "s_vlen1"
                    [] ver = tw[t] -> "s_par"
                    [] tw[t] # 0 /\ Mutant = "ThiefNoRecheck" -> "s_task"
                    [] tw[t] # 0 /\ Mutant = "ThiefComparesPointer" -> "s_ptr"
                    [] OTHER -> "s_task")
    \* A wait begins with this look (the history of StealAfterDelay).
    /\ IF Odd(ver) /\ ver # tw[t] /\ (tw[t] = 0 \/ Mutant \notin {"ThiefNoRecheck", "ThiefComparesPointer"})
         THEN Set(tobsv, t, ver) /\ Set(tobs, t, clock)
         ELSE UNCHANGED <<tobsv, tobs>>
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tx, tw, twake, tseq, lt, lh, histv>>

\* StealObserve: read the cell, note the version, sleep the delay (or, for
\* ThiefNoRecheck after a first wait and ThiefIgnoresDelay, go on at once).
StealObserve(t) ==
    /\ tpc[t] = "s_task"
    /\ Set(tx, t, task) /\ Set(tw, t, tv[t])
    /\ IF Mutant = "ThiefIgnoresDelay" \/ (Mutant = "ThiefNoRecheck" /\ tw[t] # 0)
         THEN ThiefGo(t, "s_par") /\ UNCHANGED twake
         ELSE Set(twake, t, clock + Delay) /\ ThiefGo(t, "s_sleep")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tseq, lt, lh, tobsv, tobs, histv>>

\* ThiefComparesPointer: the same task as before counts as the same occupancy.
StealComparePointer(t) ==
    /\ tpc[t] = "s_ptr"
    /\ IF task = tx[t]
         THEN Set(tw, t, tv[t]) /\ ThiefGo(t, "s_par") /\ UNCHANGED <<tx, twake, tobsv, tobs>>
         ELSE /\ Set(tx, t, task) /\ Set(tw, t, tv[t]) /\ Set(twake, t, clock + Delay)
              /\ Set(tobsv, t, tv[t]) /\ Set(tobs, t, clock)
              /\ ThiefGo(t, "s_sleep")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tseq, lt, lh, histv>>

StealSleep(t) ==                               \* atomicx.Sleep(delay) returns
    /\ tpc[t] = "s_sleep" /\ clock >= twake[t]
    /\ ThiefGo(t, "s_seq")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, ThiefKeep, histv>>

StealParity(t) ==                              \* seq odd: awaitOwner, start over
    /\ tpc[t] = "s_par"
    /\ ThiefGo(t, IF Odd(seq) THEN "s_seq" ELSE "s_len1")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, ThiefKeep, histv>>

\* Len (lfq.Ring.Len) at the pcs p1, p2, p3, going on to zero or nonzero
\* with the length it read. With FineLen it is the code's three loads: tail,
\* head, tail again (if tail moved, from the start: the length is tail-head
\* at the head load). Without, one step reads the ring's length: lfq's Len
\* is linearizable at its head load, and RunnextFine_long.cfg checks that the
\* invariants hold at the finer grain too.
LenTail(t, p1, p2, zero, nonzero) ==
    /\ tpc[t] = p1
    /\ IF FineLen
         THEN Set(lt, t, rtail) /\ ThiefGo(t, p2)
         ELSE ThiefGo(t, IF ring = <<>> THEN zero ELSE nonzero) /\ UNCHANGED lt
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tx, tw, twake, tseq, lh, tobsv, tobs, histv>>
LenHead(t, p2, p3) ==
    /\ tpc[t] = p2 /\ Set(lh, t, rhead) /\ ThiefGo(t, p3)
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tx, tw, twake, tseq, lt, tobsv, tobs, histv>>
LenRecheck(t, p1, p3, zero, nonzero) ==
    /\ tpc[t] = p3
    /\ ThiefGo(t, IF rtail # lt[t] THEN p1 ELSE IF lt[t] = lh[t] THEN zero ELSE nonzero)
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, ThiefKeep, histv>>
Len3(t, p1, p2, p3, zero, nonzero) ==
    LenTail(t, p1, p2, zero, nonzero) \/ LenHead(t, p2, p3) \/ LenRecheck(t, p1, p3, zero, nonzero)

StealRecheck(t) == Len3(t, "s_len1", "s_len2", "s_len3", "s_cas", "s_seq")

StealCAS(t) ==
    /\ tpc[t] = "s_cas"
    /\ IF ver = tv[t]
         THEN /\ ver' = ver + 1
              /\ Leave(<<tx[t]>>)
              /\ stolen' = stolen \cup {tv[t]}
              /\ ThiefReturn(t)
         ELSE /\ ThiefGo(t, "s_seq")
              /\ UNCHANGED <<ver, out, stolen, ThiefKeep>>
    /\ UNCHANGED <<task, seq, ringv, clock, ownerv, lastNext, taken,
                   emptyLied, stealLied, getLied>>

\* The slot was even: the queue is empty if the ring's Len is still 0 and
\* seq stood still.
StealVerifyLen(t) == Len3(t, "s_vlen1", "s_vlen2", "s_vlen3", "s_vseq", "s_seq")

StealVerifySeq(t) ==
    /\ tpc[t] = "s_vseq"
    /\ IF seq = tseq[t]
         THEN /\ ThiefReturn(t)                \* nothing to steal
              /\ stealLied' = (stealLied \/ ~sawEmpty[t])
         ELSE /\ ThiefGo(t, "s_seq")
              /\ UNCHANGED <<ThiefKeep, stealLied>>
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, out, lastNext, taken, stolen,
                   emptyLied, getLied>>

StealHalf(t) ==
    \/ StealStart(t) \/ StealRing(t) \/ StealSlot(t) \/ StealObserve(t)
    \/ StealComparePointer(t) \/ StealSleep(t) \/ StealParity(t) \/ StealRecheck(t)
    \/ StealCAS(t) \/ StealVerifyLen(t) \/ StealVerifySeq(t)

(***************************************************************************)
(* Empty(t) (runqempty): load seq (odd: wait for the owner), the ring's    *)
(* Len, ver, the Len again, seq again: TRUE only if all read empty and seq *)
(* did not move; if it moved, look again. EmptyMissesRunnext reads the     *)
(* ring's Len and ver once and answers.                                    *)
(***************************************************************************)
EmptySeq(t) ==
    /\ \/ tpc[t] = "e_seq"
       \/ tpc[t] = "idle" /\ Mutant # "EmptyMissesRunnext"
    /\ Set(tseq, t, seq)
    /\ ThiefGo(t, IF Odd(seq) THEN "e_seq" ELSE "e_len1")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, tv, tx, tw, twake, lt, lh, tobsv, tobs, histv>>

EmptyStartMutant(t) ==                         \* EmptyMissesRunnext: no seq
    /\ tpc[t] = "idle" /\ Mutant = "EmptyMissesRunnext"
    /\ ThiefGo(t, "e_len1")
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, ThiefKeep, histv>>

EmptyLen1(t) == Len3(t, "e_len1", "e_len2", "e_len3", "e_slot", "idle")

EmptySlot(t) ==
    /\ tpc[t] = "e_slot"
    /\ IF Odd(ver)
         THEN ThiefReturn(t) /\ UNCHANGED emptyLied   \* FALSE
         ELSE IF Mutant = "EmptyMissesRunnext"
         THEN ThiefReturn(t) /\ emptyLied' = (emptyLied \/ ~sawEmpty[t])   \* TRUE
         ELSE ThiefGo(t, "e_len4") /\ UNCHANGED <<ThiefKeep, emptyLied>>
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, out, lastNext, taken, stolen,
                   stealLied, getLied>>

EmptyLen2(t) == Len3(t, "e_len4", "e_len5", "e_len6", "e_seq2", "idle")

EmptySeq2(t) ==
    /\ tpc[t] = "e_seq2"
    /\ IF seq = tseq[t]
         THEN ThiefReturn(t) /\ emptyLied' = (emptyLied \/ ~sawEmpty[t])   \* TRUE
         ELSE ThiefGo(t, "e_seq") /\ UNCHANGED <<ThiefKeep, emptyLied>>
    /\ UNCHANGED <<slotv, seq, ringv, clock, ownerv, out, lastNext, taken, stolen,
                   stealLied, getLied>>

Empty(t) == EmptySeq(t) \/ EmptyStartMutant(t) \/ EmptyLen1(t) \/ EmptySlot(t)
            \/ EmptyLen2(t) \/ EmptySeq2(t)

(***************************************************************************)
(* The clock: atomicx.Nanotime moves on by itself.                          *)
(***************************************************************************)
Tick ==
    /\ clock < MaxClock
    /\ clock' = clock + 1
    /\ UNCHANGED <<slotv, seq, ringv, ownerv, thiefv, histv>>

Step ==
    \/ PutNext \/ Put \/ Get \/ Drain
    \/ \E t \in Thieves : StealHalf(t)
    \/ \E t \in Observers : Empty(t)
    \/ Tick

\* The history that follows every step. sawEmpty and osaw: for a process
\* inside a call, whether the queue was empty in some state since the call
\* began (its first step included). ringClear: for a thief that has loaded
\* the version it will CAS and goes on towards its CAS, whether RingClear
\* held in some state since the load.
AfterSlot == {"s_par", "s_len1", "s_len2", "s_len3", "s_cas"}
Next ==
    /\ Step
    /\ drainRing' = IF opc = "dr_cas" /\ opc' = "dr_ring" THEN ring # <<>>
                     ELSE opc' = "dr_ring" /\ drainRing
    /\ osaw' = IF opc' = "idle" THEN FALSE
               ELSE (IF opc = "idle" THEN QEmpty ELSE osaw) \/ QEmpty'
    /\ sawEmpty' = [t \in Procs |->
                      IF tpc'[t] = "idle" THEN FALSE
                      ELSE (IF tpc[t] = "idle" THEN QEmpty ELSE sawEmpty[t]) \/ QEmpty']
    /\ ringClear' = [t \in Procs |->
                       IF tpc'[t] \notin AfterSlot THEN FALSE
                       ELSE (tpc[t] \in AfterSlot /\ ringClear[t]) \/ RingClear(t)']

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* View: what TLC fingerprints. States with the same view have the same     *)
(* futures and the same invariants, so TLC explores one of them:           *)
(*   - seq only grows and is only compared for equality with a value a     *)
(*     reader loaded, or tested for oddness: the view keeps its parity and, *)
(*     for a reader that will still use its loaded value, that value's     *)
(*     parity and whether seq has moved since;                             *)
(*   - the ring's head and tail counters only through what a Len in        *)
(*     progress will make of them: whether tail moved since its load, and  *)
(*     whether the tail and head it loaded were equal;                     *)
(*   - a thief's loaded values and times only while it will use them;      *)
(*   - taken and stolen through their intersection: an occupancy leaves    *)
(*     the slot at most once for good, so only one in both matters;        *)
(*   - tobs only until the clock is Delay past it, and a wake time only    *)
(*     until the clock reaches it: the clock only grows.                   *)
(***************************************************************************)
UsesSeq(t)  == tpc[t] \in {"s_ring", "s_slot", "s_vlen1", "s_vlen2", "s_vlen3", "s_vseq",
                           "e_len1", "e_len2", "e_len3", "e_slot", "e_len4", "e_len5",
                           "e_len6", "e_seq2"}
UsesTail(t) == tpc[t] \in {"s_len2", "s_len3", "s_vlen2", "s_vlen3", "e_len2", "e_len3",
                           "e_len5", "e_len6"}
UsesHead(t) == tpc[t] \in {"s_len3", "s_vlen3", "e_len3", "e_len6"}
UsesTv(t)   == tpc[t] \in {"s_task", "s_ptr"} \cup AfterSlot
Waiting(t)  == tpc[t] \notin {"idle", "e_seq", "e_len1", "e_len2", "e_len3", "e_slot",
                              "e_len4", "e_len5", "e_len6", "e_seq2"}
View ==
    <<slotv, seq % 2, ring, clock, ownerv,
      [t \in Procs |-> <<tpc[t],
                         IF UsesSeq(t) THEN <<tseq[t] % 2, tseq[t] = seq>> ELSE <<>>,
                         IF UsesTail(t) THEN rtail = lt[t] ELSE FALSE,
                         IF UsesHead(t) THEN lt[t] = lh[t] ELSE FALSE,
                         IF UsesTv(t) THEN tv[t] ELSE 0,
                         IF Waiting(t) THEN <<tx[t], tw[t], tobsv[t]>> ELSE <<>>,
                         IF Waiting(t) /\ clock < tobs[t] + Delay THEN tobs[t] ELSE "aged",
                         IF tpc[t] = "s_sleep" /\ clock < twake[t] THEN twake[t] ELSE 0,
                         sawEmpty[t]>>],
      out, lastNext, taken \cap stolen,
      emptyLied, stealLied, getLied, drainRing, osaw, ringClear>>

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ ver \in 0..MaxVer /\ task \in Vals /\ seq \in Nat
    /\ ring \in Seq(Tasks) /\ Len(ring) <= N /\ rtail - rhead = Len(ring)
    /\ clock \in 0..MaxClock
    /\ next \in 1..(N + 1) /\ reputs \in 0..Reputs
    /\ opc \in OwnerPCs /\ ov \in 0..MaxVer /\ onew \in Vals /\ ohand \in Vals /\ ogot \in Vals
    /\ tpc \in [Procs -> ThiefPCs]
    /\ tv \in [Procs -> 0..MaxVer] /\ tx \in [Procs -> Vals] /\ tw \in [Procs -> 0..MaxVer]
    /\ twake \in [Procs -> 0..(MaxClock + Delay)] /\ tseq \in [Procs -> Nat]
    /\ tobsv \in [Procs -> 0..MaxVer] /\ tobs \in [Procs -> 0..MaxClock]
    /\ out \in [Tasks -> 0..2]
    /\ lastNext \in Vals /\ taken \subseteq 1..MaxVer /\ stolen \subseteq 1..MaxVer
    /\ sawEmpty \in [Procs -> BOOLEAN] /\ osaw \in BOOLEAN
    /\ emptyLied \in BOOLEAN /\ stealLied \in BOOLEAN /\ getLied \in BOOLEAN

\* The owner's take and a thief's steal never both get one occupancy.
NeverTakenAndStolen == taken \cap stolen = {}

\* Every task made is in exactly one place: the ring, the slot, the owner's
\* hands (on its way to the ring, or drained), or gone for good, once (a
\* task put back is in the queue again). Nothing else is anywhere.
Conservation ==
    \A v \in Tasks :
        Cardinality({i \in DOMAIN HeldSeq : HeldSeq[i] = v}) + out[v]
            = IF v < next THEN 1 ELSE 0

\* The steal delay as the thief observes it: a thief about to take the
\* runnext task (its CAS succeeds if ver still holds the version it loaded)
\* takes the very occupancy whose look began its last wait, and Delay has
\* passed since that look.
StealAfterDelay ==
    \A t \in Thieves :
        tpc[t] = "s_cas" /\ ver = tv[t] => tv[t] = tobsv[t] /\ clock >= tobs[t] + Delay

\* A thief takes the runnext task only if, since it loaded its version, the
\* ring was empty with no task on its way there at some instant while that
\* occupancy sat in the slot: the runnext task goes to a thief only when the
\* ring gives nothing (runqgrab's n == 0).
RunnextOnlyWhenRingClear ==
    \A t \in Thieves :
        tpc[t] = "s_cas" /\ ver = tv[t] => ringClear[t]

\* LIFO: the slot holds only the task put last; a task displaced from it
\* goes behind the ring; the owner's take gets the newest task; only the
\* owner fills, so its publishing CAS finds the version it left.
LIFOSlot ==
    /\ Odd(ver) => task = lastNext
    /\ lastNext # 0 => lastNext \notin Range(ring)
    /\ opc = "pn_kick" => ohand # lastNext
    /\ opc = "get_cas" /\ ver = ov => task = lastNext
    /\ opc = "pn_pub" => ver = ov

\* Empty says TRUE only if the queue was empty at some instant of the call.
EmptyOnlyWhenEmpty == ~emptyLied

\* A last-pass StealHalf comes back empty-handed only if the queue was
\* empty at some instant of the call.
StealNothingOnlyWhenEmpty == ~stealLied

\* Get (Take, then the ring) returns nothing only if the queue was empty at
\* some instant of the call.
GetNothingOnlyWhenEmpty == ~getLied
=============================================================================
