-------------------------------- MODULE Ring --------------------------------
(***************************************************************************)
(* lfq.Ring: the runtime's per-P run queue (runqput, runqputslow, runqget, *)
(* runqputbatch, runqdrain, runqgrab+runqsteal) with one owner and a set   *)
(* of thieves. Each Go method is an action of the same name, the           *)
(* disjunction of its steps, selected by a program counter. Every atomic   *)
(* access another process can race with is its own step: a thief's head    *)
(* load, tail load, each slot load and its CAS; the owner's slot write and *)
(* its tail store; overflow's copy and its CAS; every CAS on head. The     *)
(* owner's head load shares a step with its next step (see Put).          *)
(*                                                                         *)
(* Items are the naturals 1..N, put by the owner in order; 0 is the nil    *)
(* slot value. Indices grow forever (no 32-bit wraparound): slot i % Size. *)
(* No state constraint is needed: the owner puts at most N items, so head, *)
(* tail and every loaded index stay in 0..N.                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Size,     \* slots in the ring; even, so that half a ring is Size \div 2
    N,        \* the owner puts items 1..N, then only consumes
    Thieves,  \* the stealing processes (model values)
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each a change inside one step:
\*   StealNoCAS          StealCAS stores head without comparing it
\*   PublishBeforeWrite  Put stores the tail, then writes the slot
\*   OverflowDropsNew    Overflow's batch leaves out the new item
\*   StealAllNoCheck     StealLoadTail takes all it saw, n = tail - head, and
\*                       skips the retry on inconsistent loads
\*   GetNoRetry          GetCAS returns nil ("empty") when its CAS fails
\* Each has the name of the lfq mutation (lfq/mutation.go) it models.
Mutants == {"none", "StealNoCAS", "PublishBeforeWrite", "OverflowDropsNew",
            "StealAllNoCheck", "GetNoRetry"}

ASSUME /\ Size \in Nat /\ Size >= 2 /\ Size % 2 = 0
       /\ N \in Nat /\ N >= 1
       /\ Thieves # {}
       /\ Mutant \in Mutants

Half  == Size \div 2
Vals  == 0..N          \* what a slot can hold: nil or an item
Idx(i) == i % Size
Min(a, b) == IF a < b THEN a ELSE b

VARIABLES
    ring, head, tail,  \* the shared ring: slots and the two indices
    next,              \* the next item the owner will put; 1..next-1 are put
    opc, oh, ot, obuf, ocnt,  \* owner: pc, loaded head, tail, copied/read items, batch size
    tpc, thead, tn, tbuf,     \* thief: pc, loaded head, n to take, copied slots
    hands,                    \* thief: items its CAS claimed, not yet published
    batches,           \* overflow batches handed out, oldest first
    out,               \* out[v]: times value v left for good (capped at 2)
    nilEmpty           \* the ring was empty (head = tail) in the step where
                       \* the owner's latest Get returned nil; TRUE before any

ownerv  == <<opc, oh, ot, obuf, ocnt>>
thiefv  == <<tpc, thead, tn, tbuf, hands>>
histv   == <<batches, out, nilEmpty>>
vars    == <<ring, head, tail, next, ownerv, thiefv, histv>>

Sym == Permutations(Thieves)

OwnerPCs == {"idle", "put", "put_pub", "put_write", "ovf_cas",
             "get", "get_cas", "pb_pub", "drain", "drain_cas", "drain_read"}
ThiefPCs == {"idle", "load_tail", "copy", "cas", "publish"}

Init ==
    /\ ring = [i \in 0..(Size - 1) |-> 0]
    /\ head = 0
    /\ tail = 0
    /\ next = 1
    /\ opc = "idle" /\ oh = 0 /\ ot = 0 /\ obuf = <<>> /\ ocnt = 0
    /\ tpc = [t \in Thieves |-> "idle"]
    /\ thead = [t \in Thieves |-> 0]
    /\ tn = [t \in Thieves |-> 0]
    /\ tbuf = [t \in Thieves |-> <<>>]
    /\ hands = [t \in Thieves |-> <<>>]
    /\ batches = <<>>
    /\ out = [v \in Vals |-> 0]
    /\ nilEmpty = TRUE

\* The owner returns from an operation; locals are cleared so that they do
\* not multiply the states.
OwnerDone == opc' = "idle" /\ oh' = 0 /\ ot' = 0 /\ obuf' = <<>> /\ ocnt' = 0

\* Values in s leave the model for good: the owner ran them, a thief ran
\* them or queued them in its own ring, or Drain returned them.
Leave(s) == out' = [v \in Vals |->
                      Min(2, out[v] + Cardinality({i \in DOMAIN s : s[i] = v}))]

(***************************************************************************)
(* Put (runqput): load head; if there is room write slot tail, then store *)
(* tail+1, which publishes the slot. If full, Overflow runs instead.      *)
(* The owner's head load shares a step with what follows it: that touches *)
(* only what the owner alone writes (its slots, its tail), or is a copy   *)
(* that a later CAS validates; a stale head only makes the ring look      *)
(* fuller. The slot write and the tail store are separate steps.          *)
(***************************************************************************)
PutReady == opc \in {"idle", "put"} /\ next <= N /\ tail - head < Size

PutWrite ==
    \/ /\ PutReady /\ Mutant # "PublishBeforeWrite"
       /\ ring' = [ring EXCEPT ![Idx(tail)] = next]
       /\ ot' = tail /\ opc' = "put_pub"
       /\ UNCHANGED <<head, tail, next, oh, obuf, ocnt, thiefv, histv>>
    \/ /\ opc = "put_write"                     \* PublishBeforeWrite, late write
       /\ ring' = [ring EXCEPT ![Idx(ot)] = next]
       /\ next' = next + 1
       /\ OwnerDone
       /\ UNCHANGED <<head, tail, thiefv, histv>>

PutPublish ==
    \/ /\ opc = "put_pub"
       /\ tail' = ot + 1
       /\ next' = next + 1
       /\ OwnerDone
       /\ UNCHANGED <<ring, head, thiefv, histv>>
    \/ /\ PutReady /\ Mutant = "PublishBeforeWrite" \* the tail before the slot
       /\ tail' = tail + 1
       /\ ot' = tail /\ opc' = "put_write"
       /\ UNCHANGED <<ring, head, next, oh, obuf, ocnt, thiefv, histv>>

Put == PutWrite \/ PutPublish

(***************************************************************************)
(* Overflow (runqputslow; Go's unexported overflow): the ring is full, so  *)
(* copy its older half from the loaded head, then CAS head forward by      *)
(* Size \div 2. On success the batch is the half plus the new item; on     *)
(* failure a consumer made room and Put retries.                           *)
(***************************************************************************)
OverflowCopy ==
    /\ opc \in {"idle", "put"} /\ next <= N /\ tail - head = Size
    /\ oh' = head
    \* One step: only the owner writes slots, so these reads cannot be raced.
    /\ obuf' = [i \in 1..Half |-> ring[Idx(head + i - 1)]]
    /\ opc' = "ovf_cas"
    /\ UNCHANGED <<ring, head, tail, next, ot, ocnt, thiefv, histv>>

OverflowCAS ==
    /\ opc = "ovf_cas"
    /\ IF head = oh
         THEN /\ head' = oh + Half
              /\ batches' = Append(batches,
                                   IF Mutant = "OverflowDropsNew" THEN obuf
                                   ELSE Append(obuf, next))
              /\ next' = next + 1
              /\ OwnerDone
         ELSE /\ opc' = "put"                  \* head moved: retry the Put
              /\ oh' = 0 /\ obuf' = <<>>
              /\ UNCHANGED <<head, batches, next, ot, ocnt>>
    /\ UNCHANGED <<ring, tail, thiefv, out, nilEmpty>>

Overflow == OverflowCopy \/ OverflowCAS

(***************************************************************************)
(* Get (runqget): load head, read own tail and the head slot, CAS head.   *)
(* Each step where Get returns nil records in nilEmpty whether head = tail *)
(* held in that step. During a Get the tail does not move (only the owner *)
(* stores it) and head only grows, so the ring was empty at some instant  *)
(* of the call exactly when it is empty at the step that returns nil.     *)
(***************************************************************************)
GetLoad ==
    /\ opc = "get" \/ (opc = "idle" /\ head # tail) \* from idle, empty is a no-op
    /\ IF head = tail
         THEN /\ OwnerDone                     \* empty (head = tail): returns nil
              /\ nilEmpty' = TRUE
         ELSE /\ oh' = head
              /\ obuf' = <<ring[Idx(head)]>>
              /\ opc' = "get_cas"
              /\ UNCHANGED <<ot, ocnt, nilEmpty>>
    /\ UNCHANGED <<ring, head, tail, next, thiefv, batches, out>>

GetCAS ==
    /\ opc = "get_cas"
    /\ IF head = oh
         THEN /\ head' = oh + 1
              /\ Leave(obuf)
              /\ OwnerDone
              /\ UNCHANGED nilEmpty
         ELSE IF Mutant = "GetNoRetry"
         THEN /\ OwnerDone                     \* gives up: returns nil
              /\ nilEmpty' = (head = tail)
              /\ UNCHANGED <<head, out>>
         ELSE /\ opc' = "get"                  \* a thief took it: retry
              /\ oh' = 0 /\ obuf' = <<>>
              /\ UNCHANGED <<head, out, ot, ocnt, nilEmpty>>
    /\ UNCHANGED <<ring, tail, next, thiefv, batches>>

Get == GetLoad \/ GetCAS

(***************************************************************************)
(* PutBatch (runqputbatch): load head, write as many slots as fit, then    *)
(* one tail store. Items that do not fit stay with the caller, not put.    *)
(* The slot writes share a step: they land beyond the tail, and a thief    *)
(* that reads such a slot loaded a head that has moved, so its CAS fails.  *)
(***************************************************************************)
PutBatchWrite ==
    /\ opc = "idle" /\ next <= N /\ tail - head < Size  \* full: a no-op
    /\ \E m \in 1..(N - next + 1) :           \* the caller's batch: next..next+m-1
         LET k == Min(m, Size - (tail - head)) IN
         /\ ring' = [i \in DOMAIN ring |->
                       IF \E j \in 0..(k - 1) : Idx(tail + j) = i
                         THEN next + ((i - Idx(tail) + Size) % Size)
                         ELSE ring[i]]
         /\ ocnt' = k
    /\ ot' = tail /\ opc' = "pb_pub"
    /\ UNCHANGED <<head, tail, next, oh, obuf, thiefv, histv>>

PutBatchPublish ==
    /\ opc = "pb_pub"
    /\ tail' = ot + ocnt
    /\ next' = next + ocnt
    /\ OwnerDone
    /\ UNCHANGED <<ring, head, thiefv, histv>>

PutBatch == PutBatchWrite \/ PutBatchPublish

(***************************************************************************)
(* Drain (runqdrain): load head and tail, CAS head to tail, then read and  *)
(* clear the claimed slots. The owner reads its own tail after the head,   *)
(* so Go's "n > Size" inconsistency retry cannot fire here.                *)
(***************************************************************************)
DrainLoad ==
    /\ opc = "drain" \/ (opc = "idle" /\ head # tail)
    /\ IF head = tail
         THEN OwnerDone
         ELSE /\ oh' = head /\ ot' = tail /\ opc' = "drain_cas"
              /\ UNCHANGED <<obuf, ocnt>>
    /\ UNCHANGED <<ring, head, tail, next, thiefv, histv>>

DrainCAS ==
    /\ opc = "drain_cas"
    /\ IF head = oh
         THEN /\ head' = ot
              /\ opc' = "drain_read"
              /\ UNCHANGED <<oh, ot>>
         ELSE /\ opc' = "drain"
              /\ oh' = 0 /\ ot' = 0
              /\ UNCHANGED <<head>>
    /\ UNCHANGED <<ring, tail, next, obuf, ocnt, thiefv, histv>>

DrainRead ==                                   \* claim first, read after
    /\ opc = "drain_read"
    /\ Leave([i \in 1..(ot - oh) |-> ring[Idx(oh + i - 1)]])
    /\ ring' = [i \in DOMAIN ring |->
                  IF \E j \in oh..(ot - 1) : Idx(j) = i THEN 0 ELSE ring[i]]
    /\ OwnerDone
    /\ UNCHANGED <<head, tail, next, thiefv, batches, nilEmpty>>

Drain == DrainLoad \/ DrainCAS \/ DrainRead

(***************************************************************************)
(* StealHalf (runqgrab + runqsteal) by thief t: load head, load tail, take *)
(* n = ceil((tail-head)/2); n > Size \div 2 means the loads were           *)
(* inconsistent (head moved in between): retry. (StealAllNoCheck takes     *)
(* n = tail-head and never retries here.) Copy the n slots one load        *)
(* at a time, CAS head forward by n; on failure retry from the loads. On   *)
(* success run the last item and publish the rest in the thief's own ring *)
(* (both leave the model). A retry returns to "idle": a thief's only step  *)
(* there is a new load.                                                    *)
(***************************************************************************)
ThiefDone(t) ==
    /\ tpc' = [tpc EXCEPT ![t] = "idle"]
    /\ thead' = [thead EXCEPT ![t] = 0]
    /\ tn' = [tn EXCEPT ![t] = 0]
    /\ tbuf' = [tbuf EXCEPT ![t] = <<>>]

StealLoadHead(t) ==
    /\ tpc[t] = "idle"
    /\ thead' = [thead EXCEPT ![t] = head]
    /\ tpc' = [tpc EXCEPT ![t] = "load_tail"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, tn, tbuf, hands, histv>>

StealLoadTail(t) ==
    /\ tpc[t] = "load_tail"
    /\ LET len == tail - thead[t]
           n   == IF Mutant = "StealAllNoCheck" THEN len ELSE len - len \div 2
       IN  IF n = 0 \/ (n > Half /\ Mutant # "StealAllNoCheck")
             THEN ThiefDone(t)                 \* empty, or inconsistent: retry
             ELSE /\ tn' = [tn EXCEPT ![t] = n]
                  /\ tpc' = [tpc EXCEPT ![t] = "copy"]
                  /\ UNCHANGED <<thead, tbuf>>
    /\ UNCHANGED <<ring, head, tail, next, ownerv, hands, histv>>

StealCopy(t) ==                                \* one slot load per step
    /\ tpc[t] = "copy"
    /\ tbuf' = [tbuf EXCEPT ![t] = Append(@, ring[Idx(thead[t] + Len(tbuf[t]))])]
    /\ tpc' = [tpc EXCEPT ![t] = IF Len(tbuf[t]) + 1 = tn[t] THEN "cas" ELSE "copy"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, thead, tn, hands, histv>>

StealCAS(t) ==
    /\ tpc[t] = "cas"
    /\ IF head = thead[t] \/ Mutant = "StealNoCAS"
         THEN /\ head' = thead[t] + tn[t]
              /\ hands' = [hands EXCEPT ![t] = tbuf[t]]
              /\ tpc' = [tpc EXCEPT ![t] = "publish"]
              /\ thead' = [thead EXCEPT ![t] = 0]
              /\ tn' = [tn EXCEPT ![t] = 0]
              /\ tbuf' = [tbuf EXCEPT ![t] = <<>>]
         ELSE /\ ThiefDone(t)                  \* head moved: retry
              /\ UNCHANGED <<head, hands>>
    /\ UNCHANGED <<ring, tail, next, ownerv, histv>>

StealPublish(t) ==                             \* the thief's own tail store
    /\ tpc[t] = "publish"
    /\ Leave(hands[t])
    /\ hands' = [hands EXCEPT ![t] = <<>>]
    /\ tpc' = [tpc EXCEPT ![t] = "idle"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, thead, tn, tbuf, batches,
                   nilEmpty>>

StealHalf(t) == StealLoadHead(t) \/ StealLoadTail(t) \/ StealCopy(t)
                \/ StealCAS(t) \/ StealPublish(t)

Next ==
    \/ Put \/ Overflow \/ Get \/ PutBatch \/ Drain
    \/ \E t \in Thieves : StealHalf(t)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Views used by the invariants.                                           *)
(***************************************************************************)
RECURSIVE Flat(_)
Flat(s) == IF s = <<>> THEN <<>> ELSE Head(s) \o Flat(Tail(s))

Occ(s, v) == Cardinality({i \in DOMAIN s : s[i] = v})

Increasing(s) == \A i \in 1..(Len(s) - 1) : s[i] < s[i + 1]

\* The owner's unfinished Put or PutBatch owns the slots from ot on: their
\* items are not put until it returns, whatever the tail says.
LiveTail == IF opc \in {"put_write", "put_pub", "pb_pub"} /\ ot < tail
              THEN ot ELSE tail

\* The live ring, oldest first.
RingSeq == [i \in 1..(LiveTail - head) |-> ring[Idx(head + i - 1)]]

\* Claimed by Drain's CAS, not read out yet.
DrainClaim == IF opc = "drain_read"
                THEN [i \in 1..(ot - oh) |-> ring[Idx(oh + i - 1)]]
                ELSE <<>>

\* Claimed by a thief's CAS, not published yet (in any order of thieves).
RECURSIVE CatOver(_)
CatOver(S) == IF S = {} THEN <<>>
              ELSE LET t == CHOOSE t \in S : TRUE IN hands[t] \o CatOver(S \ {t})
InHands == CatOver(Thieves)

\* Every place a value can be in, but for those that left for good (out).
Placed == RingSeq \o DrainClaim \o InHands \o Flat(batches)

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
TypeOK ==
    /\ ring \in [0..(Size - 1) -> Vals]
    /\ head \in 0..N /\ tail \in 0..N
    /\ next \in 1..(N + 1)
    /\ opc \in OwnerPCs
    /\ oh \in 0..N /\ ot \in 0..N
    /\ obuf \in Seq(Vals) /\ ocnt \in 0..Size
    /\ tpc \in [Thieves -> ThiefPCs]
    /\ thead \in [Thieves -> 0..N] /\ tn \in [Thieves -> 0..N]
    /\ tbuf \in [Thieves -> Seq(Vals)] /\ hands \in [Thieves -> Seq(Vals)]
    /\ batches \in Seq(Seq(Vals))
    /\ out \in [Vals -> 0..2]
    /\ nilEmpty \in BOOLEAN

\* Every item put so far is in exactly one place: the live ring, Drain's or
\* a thief's claim, an overflow batch, or gone for good (run by the owner
\* or a thief, queued in a thief's ring, drained). Nothing else is anywhere:
\* not nil, not an item that was not put.
Conservation ==
    LET p == Placed IN
    \A v \in Vals : Occ(p, v) + out[v] = IF v \in 1..(next - 1) THEN 1 ELSE 0

LengthBounds ==
    /\ head <= tail /\ tail - head <= Size
    /\ \A i \in DOMAIN batches : Len(batches[i]) = Half + 1
    /\ \A t \in Thieves :
         \* a steal never copies more than half a ring (Go: the thief's ring)
         /\ tn[t] <= Half /\ Len(tbuf[t]) <= tn[t] /\ Len(hands[t]) <= Half
         \* and at most half, rounded up, of the queue behind its loaded head;
         \* tail only grows, so at a successful CAS this is the queue it took
         /\ tpc[t] \in {"copy", "cas"} =>
              LET len == tail - thead[t] IN tn[t] <= len - len \div 2

\* FIFO for the owner, without recording history: the live ring is in put
\* order and older than anything put later, and a Get whose CAS is about to
\* succeed holds the oldest live item. So each Get returns the least item
\* then queued, and everything queued after it is larger: the owner's gets
\* are strictly increasing. A gap between ring neighbours is an item that
\* went out as the new item of an overflow batch.
OwnerFIFO ==
    LET r == RingSeq IN
    /\ Increasing(r)
    /\ r # <<>> => r[Len(r)] < next
    /\ opc = "get_cas" /\ head = oh => r # <<>> /\ obuf = <<r[1]>>
    /\ \A i \in 1..(Len(r) - 1) :
         \A x \in (r[i] + 1)..(r[i + 1] - 1) :
           \E b \in DOMAIN batches : batches[b][Len(batches[b])] = x

\* Get returns nil ("empty") only if the ring was empty at some instant
\* during the call: see nilEmpty and Get above. Items that remain in the
\* ring stay counted, so Conservation alone cannot see a Get that gives up.
GetEmptyOnlyWhenEmpty == nilEmpty
=============================================================================
