------------------------------- MODULE GlobalQ -------------------------------
(***************************************************************************)
(* globalq.Queue: the scheduler-wide run queue (sched.runq under          *)
(* sched.lock: globrunqput, globrunqputbatch, globrunqget,                 *)
(* globrunqgetbatch) with a length cell read without the lock, and the     *)
(* Ps around it: each owns a ring (lfq.Ring, abstracted to a sequence;     *)
(* Ring.tla checks the ring itself) that overflows half of itself plus the *)
(* new item into the queue in one batch (runqputslow), and takes a batch   *)
(* from the queue into its empty ring (findRunnable).                      *)
(*                                                                         *)
(* Each Go method of globalq.Queue is the action of the same name, the     *)
(* disjunction of its steps, selected by the P's program counter. A        *)
(* critical section is one step (taking the lock and doing the work: what  *)
(* it touches is seen by others only through the lock or the length cell); *)
(* the store of the length cell and the unlock are steps of their own, so  *)
(* a lock-free reader (Len, Empty, the fast path of Get and GetBatch) can  *)
(* read the cell between any two of them.                                  *)
(*                                                                         *)
(* Items are the naturals 1..N, made in order by the Ps (into their rings  *)
(* or straight into the queue). key[x] is the ticket of x's latest entry   *)
(* into the queue, so FIFO can be stated as an order on tickets. Tickets   *)
(* follow the order of the caller's argument (the batch as the P handed it *)
(* over), not the order the queue appended it in: FIFO is per item, so a   *)
(* PutBatch that reorders its own batch breaks it.                         *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Procs,         \* the Ps (model values); GetBatch's procs is their number
    RingSize,      \* slots of a P's ring; even, so half a ring is RingSize \div 2
    N,             \* items 1..N are made, then the Ps only consume
    MaxRequested,  \* GetBatch's requested count ranges over 1..MaxRequested
    Mutant         \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each a change inside one step, each with the name of
\* the globalq mutation (globalq/mutation.go) it models:
\*   BatchSizeOffByOne   GetBatchLock caps a batch at len \div procs + 2
\*   LenNotUnderLock     every operation unlocks before it stores the length
\*   PutBatchDropsLast   PutBatchLock appends the batch without its last item
\*   GetBatchOutOfOrder  GetBatchLock hands out the newest item of the batch
\*                       to run, then the older ones
\*   PutBatchSwapsTwo    PutBatchLock appends the batch with its first two
\*                       items swapped
\*   GetSkipsLast        GetLock returns nothing when the queue holds one item
\*   CheckOneAsEmpty     the lock-free check of Get and GetBatch gives up on a
\*                       length of 1 as on 0
Mutants == {"none", "BatchSizeOffByOne", "LenNotUnderLock", "PutBatchDropsLast",
            "GetBatchOutOfOrder", "PutBatchSwapsTwo", "GetSkipsLast",
            "CheckOneAsEmpty"}

ASSUME /\ IsFiniteSet(Procs) /\ Procs # {}
       /\ RingSize \in Nat /\ RingSize >= 2 /\ RingSize % 2 = 0
       /\ N \in Nat /\ N >= 1
       /\ MaxRequested \in Nat /\ 1 <= MaxRequested /\ MaxRequested <= RingSize
       /\ Mutant \in Mutants

NP    == Cardinality(Procs)  \* gomaxprocs
Half  == RingSize \div 2
Items == 1..N
NoP   == "nobody"            \* the lock's holder when it is free
Min(a, b) == IF a < b THEN a ELSE b
MaxTicket == 3 * N           \* an entry takes at least one new item, at most Half + 1
NoLen == N + 1               \* pend[p] when P p has no store of the length to make

VARIABLES
    gq,      \* the queue's items, oldest first
    glen,    \* the length cell, read without the lock
    holder,  \* the P holding the lock, or NoP
    rings,   \* rings[p]: P p's ring, oldest first
    next,    \* the next item to make; 1..next-1 are made
    pc,      \* pc[p]: where P p is
    hands,   \* hands[p]: an overflow batch on its way in, or a batch taken out
    pend,    \* pend[p]: the length P p's critical section left, until stored; else NoLen
    req,     \* req[p]: the requested count of P p's GetBatch
    took,    \* took[p]: the queue's length when P p's GetBatch took its batch
    key,     \* key[x]: the ticket of x's latest entry into the queue (0: none)
    ticket,  \* the next ticket
    out,     \* out[x]: times x ran (capped at 2)
    nilTake  \* history: a Get or GetBatch returned nothing without cause (below)

vars == <<gq, glen, holder, rings, next, pc, hands, pend, req, took, key, ticket, out, nilTake>>

Sym == Permutations(Procs)

\* The operations with a critical section, by the prefix of their pcs.
Ops == {"put", "pb", "get", "gb"}
StorePCs  == {o \o "_store" : o \in Ops}
UnlockPCs == {o \o "_unlock" : o \in Ops}
PCs == {"idle", "pb_lock", "get_lock", "gb_lock", "gb_place"} \cup StorePCs \cup UnlockPCs

Init ==
    /\ gq = <<>>
    /\ glen = 0
    /\ holder = NoP
    /\ rings = [p \in Procs |-> <<>>]
    /\ next = 1
    /\ pc = [p \in Procs |-> "idle"]
    /\ hands = [p \in Procs |-> <<>>]
    /\ pend = [p \in Procs |-> NoLen]
    /\ req = [p \in Procs |-> 0]
    /\ took = [p \in Procs |-> 0]
    /\ key = [x \in Items |-> 0]
    /\ ticket = 1
    /\ out = [x \in Items |-> 0]
    /\ nilTake = FALSE

Run(x) == out' = [out EXCEPT ![x] = Min(2, @ + 1)]

\* The caller hands over arg; the queue appends s at its tail (s = arg but
\* in a mutant). Each item of arg gets the next ticket in arg's order: the
\* order the caller asked for, which FIFO holds the queue to.
Enter(arg, s) ==
    /\ gq' = gq \o s
    /\ key' = [x \in Items |->
                 IF \E i \in DOMAIN arg : arg[i] = x
                   THEN ticket - 1 + CHOOSE i \in DOMAIN arg : arg[i] = x
                   ELSE key[x]]
    /\ ticket' = ticket + Len(arg)

\* The critical section of operation o by P p is done, leaving the queue
\* with length l: store the length, then unlock (LenNotUnderLock: the other
\* way round).
AfterCS(p, o, l) ==
    /\ holder' = p
    /\ pend' = [pend EXCEPT ![p] = l]
    /\ pc' = [pc EXCEPT ![p] = IF Mutant = "LenNotUnderLock" THEN o \o "_unlock"
                                                            ELSE o \o "_store"]

\* The store of the length cell and the unlock of operation o by P p, each a
\* step; then P p goes on at pc done.
StoreLen(p, o, done) ==
    /\ pc[p] = o \o "_store"
    /\ glen' = pend[p]
    /\ pend' = [pend EXCEPT ![p] = NoLen]
    /\ pc' = [pc EXCEPT ![p] = IF Mutant = "LenNotUnderLock" THEN done ELSE o \o "_unlock"]
    /\ UNCHANGED <<gq, holder, rings, next, hands, req, took, key, ticket, out, nilTake>>

Unlock(p, o, done) ==
    /\ pc[p] = o \o "_unlock"
    /\ holder' = NoP
    /\ pc' = [pc EXCEPT ![p] = IF Mutant = "LenNotUnderLock" THEN o \o "_store" ELSE done]
    /\ UNCHANGED <<gq, glen, rings, next, hands, pend, req, took, key, ticket, out, nilTake>>

(***************************************************************************)
(* RingPut (lfq.Ring.Put: runqput, and runqputslow when full): P p makes  *)
(* a new item and puts it in its ring; a full ring instead hands its older *)
(* half and the new item, as one batch, to PutBatch. One step: the ring's  *)
(* own interleavings are Ring.tla's business.                              *)
(***************************************************************************)
RingPut(p) ==
    /\ pc[p] = "idle" /\ next <= N
    /\ IF Len(rings[p]) < RingSize
         THEN /\ rings' = [rings EXCEPT ![p] = Append(@, next)]
              /\ UNCHANGED <<pc, hands>>
         ELSE /\ hands' = [hands EXCEPT ![p] = SubSeq(rings[p], 1, Half) \o <<next>>]
              /\ rings' = [rings EXCEPT ![p] = SubSeq(@, Half + 1, RingSize)]
              /\ pc' = [pc EXCEPT ![p] = "pb_lock"]
    /\ next' = next + 1
    /\ UNCHANGED <<gq, glen, holder, pend, req, took, key, ticket, out, nilTake>>

(***************************************************************************)
(* RingGet (lfq.Ring.Get: runqget): P p runs the oldest item of its ring.  *)
(***************************************************************************)
RingGet(p) ==
    /\ pc[p] = "idle" /\ rings[p] # <<>>
    /\ Run(Head(rings[p]))
    /\ rings' = [rings EXCEPT ![p] = Tail(@)]
    /\ UNCHANGED <<gq, glen, holder, next, pc, hands, pend, req, took, key, ticket, nilTake>>

(***************************************************************************)
(* Put (globrunqput): P p makes a new item and appends it under the lock.  *)
(***************************************************************************)
PutLock(p) ==
    /\ pc[p] = "idle" /\ next <= N /\ holder = NoP
    /\ Enter(<<next>>, <<next>>)
    /\ next' = next + 1
    /\ AfterCS(p, "put", Len(gq) + 1)
    /\ UNCHANGED <<glen, rings, hands, req, took, out, nilTake>>

Put(p) == PutLock(p) \/ StoreLen(p, "put", "idle") \/ Unlock(p, "put", "idle")

(***************************************************************************)
(* PutBatch (globrunqputbatch): the overflow batch in P p's hands is       *)
(* appended, in order, in one critical section.                            *)
(***************************************************************************)
PutBatchLock(p) ==
    /\ pc[p] = "pb_lock" /\ holder = NoP
    /\ LET h == hands[p]
           b == CASE Mutant = "PutBatchDropsLast" -> SubSeq(h, 1, Len(h) - 1)
                  [] Mutant = "PutBatchSwapsTwo" /\ Len(h) >= 2 ->
                       <<h[2], h[1]>> \o SubSeq(h, 3, Len(h))
                  [] OTHER -> h
       IN  /\ Enter(h, b)
           /\ AfterCS(p, "pb", Len(gq) + Len(b))
    /\ hands' = [hands EXCEPT ![p] = <<>>]
    /\ UNCHANGED <<glen, rings, next, req, took, out, nilTake>>

PutBatch(p) == PutBatchLock(p) \/ StoreLen(p, "pb", "idle") \/ Unlock(p, "pb", "idle")

(***************************************************************************)
(* The lock-free check of Get and GetBatch: one load of the length cell.   *)
(* CheckNil is the check giving up, which returns nothing and changes      *)
(* nothing but the history: nilTake records a check that gave up on a      *)
(* length other than 0. The real check gives up exactly on 0.              *)
(***************************************************************************)
GivesUp(l) == IF Mutant = "CheckOneAsEmpty" THEN l <= 1 ELSE l = 0

CheckNil(p) ==
    /\ pc[p] = "idle" /\ GivesUp(glen)
    /\ nilTake' = (nilTake \/ glen # 0)
    /\ UNCHANGED <<gq, glen, holder, rings, next, pc, hands, pend, req, took, key, ticket, out>>

(***************************************************************************)
(* Get (globrunqget; findRunnable calls it first when schedtick % 61 = 0,  *)
(* here at any time): GetCheck reads the length cell without the lock and  *)
(* gives up on 0 (CheckNil); GetLock takes and runs the oldest item, if    *)
(* any is left, and returns nothing only if none is (nilTake records one   *)
(* that returns nothing from a queue that holds an item).                  *)
(***************************************************************************)
GetCheck(p) ==
    /\ pc[p] = "idle" /\ ~GivesUp(glen)
    /\ pc' = [pc EXCEPT ![p] = "get_lock"]
    /\ UNCHANGED <<gq, glen, holder, rings, next, hands, pend, req, took, key, ticket, out, nilTake>>

GetLock(p) ==
    /\ pc[p] = "get_lock" /\ holder = NoP
    /\ LET none == IF Mutant = "GetSkipsLast" THEN Len(gq) <= 1 ELSE gq = <<>>
       IN  /\ IF none
                THEN UNCHANGED <<gq, out>>
                ELSE /\ Run(Head(gq))
                     /\ gq' = Tail(gq)
           /\ AfterCS(p, "get", IF none THEN Len(gq) ELSE Len(gq) - 1)
           /\ nilTake' = (nilTake \/ (none /\ gq # <<>>))
    /\ UNCHANGED <<glen, rings, next, hands, req, took, key, ticket>>

Get(p) == CheckNil(p) \/ GetCheck(p) \/ GetLock(p) \/ StoreLen(p, "get", "idle") \/ Unlock(p, "get", "idle")

(***************************************************************************)
(* GetBatch (globrunqgetbatch, as findRunnable calls it once P p's ring is *)
(* empty, with any requested count the ring can take): GetBatchCheck reads *)
(* the length cell and gives up on 0 (CheckNil); GetBatchLock takes        *)
(* n = min(requested, len, len \div NP + 1) of the oldest items into the   *)
(* P's hands, the one to run first; after the store and the unlock,        *)
(* GetBatchPlace runs the first and puts the rest in the ring              *)
(* (lfq.Ring.PutBatch: runqputbatch).                                      *)
(***************************************************************************)
GetBatchCheck(p) ==
    /\ pc[p] = "idle" /\ rings[p] = <<>> /\ ~GivesUp(glen)
    /\ \E r \in 1..MaxRequested : req' = [req EXCEPT ![p] = r]
    /\ pc' = [pc EXCEPT ![p] = "gb_lock"]
    /\ UNCHANGED <<gq, glen, holder, rings, next, hands, pend, took, key, ticket, out, nilTake>>

GetBatchLock(p) ==
    /\ pc[p] = "gb_lock" /\ holder = NoP
    /\ LET l     == Len(gq)
           share == l \div NP + (IF Mutant = "BatchSizeOffByOne" THEN 2 ELSE 1)
           n     == Min(req[p], Min(l, share))
           b     == SubSeq(gq, 1, n)
       IN  /\ gq' = SubSeq(gq, n + 1, l)
           /\ hands' = [hands EXCEPT ![p] =
                          IF Mutant = "GetBatchOutOfOrder" /\ n > 0
                            THEN <<b[n]>> \o SubSeq(b, 1, n - 1)
                            ELSE b]
           /\ took' = [took EXCEPT ![p] = l]
           /\ AfterCS(p, "gb", l - n)
    /\ UNCHANGED <<glen, rings, next, req, key, ticket, out, nilTake>>

GetBatchPlace(p) ==
    /\ pc[p] = "gb_place"
    /\ IF hands[p] = <<>>
         THEN UNCHANGED <<rings, out>>
         ELSE /\ Run(Head(hands[p]))
              /\ rings' = [rings EXCEPT ![p] = @ \o Tail(hands[p])]
    /\ hands' = [hands EXCEPT ![p] = <<>>]
    /\ req' = [req EXCEPT ![p] = 0]
    /\ took' = [took EXCEPT ![p] = 0]
    /\ pc' = [pc EXCEPT ![p] = "idle"]
    /\ UNCHANGED <<gq, glen, holder, next, pend, key, ticket, nilTake>>

GetBatch(p) ==
    \/ GetBatchCheck(p) \/ GetBatchLock(p)
    \/ StoreLen(p, "gb", "gb_place") \/ Unlock(p, "gb", "gb_place")
    \/ GetBatchPlace(p)

\* Every item made has run, nothing is left anywhere: stay.
Done ==
    /\ next > N /\ gq = <<>>
    /\ \A p \in Procs : pc[p] = "idle" /\ rings[p] = <<>>
    /\ UNCHANGED vars

Next ==
    \/ \E p \in Procs :
         \/ RingPut(p) \/ RingGet(p)
         \/ Put(p) \/ PutBatch(p) \/ Get(p) \/ GetBatch(p)
    \/ Done

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Views used by the invariants.                                           *)
(***************************************************************************)
RECURSIVE CatOver(_, _)
CatOver(f, S) == IF S = {} THEN <<>>
                 ELSE LET p == CHOOSE p \in S : TRUE IN f[p] \o CatOver(f, S \ {p})

Occ(s, x) == Cardinality({i \in DOMAIN s : s[i] = x})

\* Every place an item can be in but "ran".
Placed == gq \o CatOver(rings, Procs) \o CatOver(hands, Procs)

KeysIncreasing(s) == \A i \in 1..(Len(s) - 1) : key[s[i]] < key[s[i + 1]]

\* P p holds a batch GetBatch took, not yet placed.
Taken(p) == pc[p] \in {"gb_store", "gb_unlock", "gb_place"}

\* P p's critical section is done and its store of the length is not.
Pending(p) == pend[p] # NoLen

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ gq \in Seq(Items) /\ Len(gq) <= N
    /\ glen \in 0..N
    /\ holder \in Procs \cup {NoP}
    /\ rings \in [Procs -> Seq(Items)]
    /\ next \in 1..(N + 1)
    /\ pc \in [Procs -> PCs]
    /\ hands \in [Procs -> Seq(Items)]
    /\ pend \in [Procs -> 0..NoLen]
    /\ req \in [Procs -> 0..MaxRequested]
    /\ took \in [Procs -> 0..N]
    /\ key \in [Items -> 0..MaxTicket]
    /\ ticket \in 1..(MaxTicket + 1)
    /\ out \in [Items -> 0..2]
    /\ nilTake \in BOOLEAN

\* Every item made is in exactly one place: the queue, a ring, a P's hands
\* (an overflow batch on its way in, a batch taken out), or it ran, once.
\* Nothing is anywhere that was not made.
Conservation ==
    LET s == Placed IN
    \A x \in Items : Occ(s, x) + out[x] = IF x < next THEN 1 ELSE 0

\* Batch sizes: an overflow batch is half a ring plus the new item; a batch
\* GetBatch took from a queue of length l holds exactly
\* min(requested, l, l \div NP + 1); rings never exceed their size.
BatchBounds ==
    /\ \A p \in Procs :
         /\ Len(rings[p]) <= RingSize
         /\ pc[p] = "pb_lock" => Len(hands[p]) = Half + 1
         /\ Taken(p) /\ took[p] > 0 =>
              Len(hands[p]) = Min(req[p], Min(took[p], took[p] \div NP + 1))
         /\ Taken(p) /\ took[p] = 0 => hands[p] = <<>>

\* FIFO, per item: the queue is in entry order, the items of one batch in
\* the order the caller handed them over; a batch taken out is a run of the
\* oldest items (older than all that remain), in entry order, so the one
\* to run is the oldest and the ring gets the rest in order.
FIFO ==
    /\ KeysIncreasing(gq)
    /\ \A p \in Procs : Taken(p) =>
         /\ KeysIncreasing(hands[p])
         /\ \A i \in DOMAIN hands[p], j \in DOMAIN gq : key[hands[p][i]] < key[gq[j]]

\* The length cell: once no store is pending, it is the queue's length. A
\* Len, an Empty or a fast-path check reads a length the queue had after
\* some prefix of the critical sections (each takes effect at its store).
LenCell == (\A p \in Procs : ~Pending(p)) => glen = Len(gq)

\* Returns nothing only when empty: a Get or GetBatch returns nothing only
\* if its lock-free check read 0 from the length cell, or (Get) it found the
\* queue empty under the lock. (GetBatch under the lock: BatchBounds, a
\* batch from a queue of l > 0 holds at least one item.) With LenCell this
\* is what holds: a take that returns nothing saw, at one instant, a queue
\* that was empty but for the change of at most one critical section whose
\* store was still pending, an operation that takes effect after it.
NilOnlyWhenEmpty == ~nilTake

\* The lock: a P past its unlock step does not hold it, and the holder is
\* always between its critical section and its unlock.
LockHeld ==
    /\ \A p \in Procs : pc[p] \in UnlockPCs => holder = p
    /\ holder # NoP => pc[holder] \in StorePCs \cup UnlockPCs
=============================================================================
