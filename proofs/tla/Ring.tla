-------------------------------- MODULE Ring --------------------------------
(***************************************************************************)
(* lfq.Ring: the runtime's per-P run queue (runqput, runqputslow, runqget, *)
(* runqputbatch, runqdrain, runqgrab+runqsteal) with one owner and a set   *)
(* of thieves, who also read its length (Ring.Len). Each Go method is an   *)
(* action of the same name, the disjunction of its steps, selected by a    *)
(* program counter. Every atomic access another process can race with is   *)
(* its own step: a thief's head load, tail load, each slot load and its    *)
(* CAS; Len's three loads; the owner's slot write and its tail store;      *)
(* overflow's copy and its CAS; every CAS on head. With Fine = FALSE the   *)
(* owner's head load shares a step with its next step, and the owner's    *)
(* runs of slot accesses (PutBatch's writes, overflow's copy, Drain's      *)
(* reads) are one step each; Fine = TRUE (RingFine.tla) splits every one   *)
(* of them, at the Go code's grain, to show that the coarse form hides     *)
(* nothing.                                                                *)
(*                                                                         *)
(* Items are the naturals 1..N, put by the owner in order; 0 is the nil    *)
(* slot value. Indices grow forever: slot i % Size. The Go indices are     *)
(* uint32 registers that wrap; with IdxMod > 0 the thieves' comparisons    *)
(* see indices modulo IdxMod, which shows where too narrow a register      *)
(* breaks the algorithm (ABA). No state constraint is needed: the owner    *)
(* puts at most N items, so head, tail and every loaded index stay in     *)
(* 0..N.                                                                   *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Size,     \* slots in the ring; even, so that half a ring is Size \div 2
    N,        \* the owner puts items 1..N, then only consumes
    Thieves,  \* the stealing processes (model values)
    Mutant,   \* "none" is the real algorithm; any other name breaks one step
    Fine,     \* TRUE: every owner access its own step (RingFine.cfg)
    WithLen,  \* TRUE: thieves also call Len (RingLen.cfg)
    IdxMod    \* 0: exact indices; else the thieves' registers hold i % IdxMod

\* The broken variants, each a change inside one step:
\*   StealNoCAS          StealCAS stores head without comparing it
\*   PublishBeforeWrite  Put stores the tail, then writes the slot
\*   OverflowDropsNew    Overflow's batch leaves out the new item
\*   StealAllNoCheck     StealLoadTail takes all it saw, n = tail - head, and
\*                       skips the retry on inconsistent loads
\*   GetNoRetry          GetCAS returns nil ("empty") when its CAS fails
\*   GrabPastFreeHalf    StealLoadTail retries only when n > Size, not
\*                       n > Size \div 2: an inconsistent read copies more
\*                       than the thief's free half before its CAS fails
\*   StealRoundsDown     StealLoadTail takes len \div 2: nothing from one item
\*   GetSkipsLast        Get returns nil when one item is left
\*   LenOneAsEmpty       Len returns 0 for one item, skipping the recheck
\* Each has the name of the lfq mutation (lfq/mutation.go) it models.
Mutants == {"none", "StealNoCAS", "PublishBeforeWrite", "OverflowDropsNew",
            "StealAllNoCheck", "GetNoRetry", "GrabPastFreeHalf",
            "StealRoundsDown", "GetSkipsLast", "LenOneAsEmpty"}

ASSUME /\ Size \in Nat /\ Size >= 2 /\ Size % 2 = 0
       /\ N \in Nat /\ N >= 1
       /\ Thieves # {}
       /\ Mutant \in Mutants
       /\ Fine \in BOOLEAN
       /\ WithLen \in BOOLEAN
       /\ IdxMod \in Nat /\ (IdxMod = 0 \/ (IdxMod > Size /\ IdxMod % Size = 0))

Half  == Size \div 2
Vals  == 0..N          \* what a slot can hold: nil or an item
Idx(i) == i % Size
Min(a, b) == IF a < b THEN a ELSE b
\* An index as a thief's register holds it. Size divides IdxMod, so a
\* register picks the same slot as the exact index.
Reg(i) == IF IdxMod = 0 THEN i ELSE i % IdxMod

VARIABLES
    ring, head, tail,  \* the shared ring: slots and the two indices
    next,              \* the next item the owner will put; 1..next-1 are put
    opc, oh, ot, obuf, ocnt,  \* owner: pc, loaded head, tail, copied/read items, batch size
    tpc, thead, tn, tbuf,     \* thief: pc, loaded head (Len: tail), n (Len: head), copies
    hands,                    \* thief: items its CAS claimed, not yet published
    batches,           \* overflow batches handed out, oldest first
    out,               \* out[v]: times value v left for good (capped at 2)
    nothingOK,         \* no call has returned nothing (nil, 0) while the
                       \* ring held items at every instant of the call
    osaw, tsaw         \* ghosts: the owner's / thief t's take call in
                       \* progress has seen the ring empty at some instant

ownerv  == <<opc, oh, ot, obuf, ocnt>>
thiefv  == <<tpc, thead, tn, tbuf, hands>>
histv   == <<batches, out, nothingOK>>
ghostv  == <<osaw, tsaw>>
vars    == <<ring, head, tail, next, ownerv, thiefv, histv, ghostv>>

Sym == Permutations(Thieves)

OwnerPCs == {"idle", "put", "put_h", "put_pub", "put_write", "ovf_copy",
             "ovf_cas", "get", "get_h", "get_cas", "pb_w", "pb_pub",
             "drain", "drain_cas", "drain_read"}
ThiefPCs == {"idle", "load_tail", "copy", "cas", "retry", "publish",
             "len_h", "len_re", "len_retry"}

\* The pcs inside a call that may still return nothing ("take calls").
OwnerTakePCs == {"get", "get_h", "get_cas", "drain", "drain_cas"}
ThiefTakePCs == {"load_tail", "copy", "cas", "retry", "len_h", "len_re",
                 "len_retry"}

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
    /\ nothingOK = TRUE
    /\ osaw = FALSE
    /\ tsaw = [t \in Thieves |-> FALSE]

\* The owner returns from an operation; locals are cleared so that they do
\* not multiply the states.
OwnerDone == opc' = "idle" /\ oh' = 0 /\ ot' = 0 /\ obuf' = <<>> /\ ocnt' = 0

\* Values in s leave the model for good: the owner ran them, a thief ran
\* them or queued them in its own ring, or Drain returned them.
Leave(s) == out' = [v \in Vals |->
                      Min(2, out[v] + Cardinality({i \in DOMAIN s : s[i] = v}))]

\* A call returns nothing in this step. It may, if the ring was empty at
\* some instant of the call: saw says so for the instants before this step
\* (the ghosts below), head = tail for this one.
OSaw    == opc \in OwnerTakePCs /\ osaw
TSaw(t) == tpc[t] \in ThiefTakePCs /\ tsaw[t]
ReturnsNothing(saw) == nothingOK' = (nothingOK /\ (saw \/ head = tail))

(***************************************************************************)
(* Put (runqput): load head; if there is room write slot tail, then store *)
(* tail+1, which publishes the slot. If full, Overflow runs instead.      *)
(* Coarse: the owner's head load shares a step with what follows it: that *)
(* touches only what the owner alone writes (its slots, its tail), or is  *)
(* a copy that a later CAS validates; a stale head only makes the ring    *)
(* look fuller. Fine: PutLoadHead is its own step. The slot write and the *)
(* tail store are separate steps in both.                                 *)
(***************************************************************************)
PutLoadHead ==                                 \* Fine only
    /\ Fine /\ opc \in {"idle", "put"} /\ next <= N
    /\ oh' = head /\ opc' = "put_h"
    /\ UNCHANGED <<ring, head, tail, next, ot, obuf, ocnt, thiefv, histv>>

\* The head the owner's Put acts on: loaded in this step, or by PutLoadHead.
PutHead  == IF Fine THEN oh ELSE head
PutReady == IF Fine THEN opc = "put_h" /\ tail - oh < Size
                    ELSE opc \in {"idle", "put"} /\ next <= N /\ tail - head < Size

PutWrite ==
    \/ /\ PutReady /\ Mutant # "PublishBeforeWrite"
       /\ ring' = [ring EXCEPT ![Idx(tail)] = next]
       /\ ot' = tail /\ opc' = "put_pub" /\ oh' = 0
       /\ UNCHANGED <<head, tail, next, obuf, ocnt, thiefv, histv>>
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
       /\ ot' = tail /\ opc' = "put_write" /\ oh' = 0
       /\ UNCHANGED <<ring, head, next, obuf, ocnt, thiefv, histv>>

Put == PutLoadHead \/ PutWrite \/ PutPublish

(***************************************************************************)
(* Overflow (runqputslow; Go's unexported overflow): the ring is full, so  *)
(* copy its older half from the loaded head, then CAS head forward by      *)
(* Size \div 2. On success the batch is the half plus the new item; on     *)
(* failure a consumer made room and Put retries. Coarse: the copy is one   *)
(* step (only the owner writes slots, so its reads of them cannot be       *)
(* raced). Fine: one slot per step.                                        *)
(***************************************************************************)
OverflowCopy ==
    \/ /\ ~Fine /\ opc \in {"idle", "put"} /\ next <= N /\ tail - head = Size
       /\ oh' = head
       /\ obuf' = [i \in 1..Half |-> ring[Idx(head + i - 1)]]
       /\ opc' = "ovf_cas"
       /\ UNCHANGED <<ring, head, tail, next, ot, ocnt, thiefv, histv>>
    \/ /\ Fine /\ ((opc = "put_h" /\ tail - oh = Size) \/ opc = "ovf_copy")
       /\ obuf' = Append(obuf, ring[Idx(oh + Len(obuf))])
       /\ opc' = IF Len(obuf) + 1 = Half THEN "ovf_cas" ELSE "ovf_copy"
       /\ UNCHANGED <<ring, head, tail, next, oh, ot, ocnt, thiefv, histv>>

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
    /\ UNCHANGED <<ring, tail, thiefv, out, nothingOK>>

Overflow == OverflowCopy \/ OverflowCAS

(***************************************************************************)
(* Get (runqget): load head, read own tail and the head slot, CAS head.   *)
(* Coarse: the loads are one step (GetLoad); Fine: the head load is its   *)
(* own step (GetLoadHead), then GetRead. A Get from idle on an empty ring *)
(* returns nil without touching anything: it is not modelled.             *)
(***************************************************************************)
\* Get returns nil on these loads: an empty ring, or GetSkipsLast's one item.
GetSeesNothing(h) == tail = h \/ (Mutant = "GetSkipsLast" /\ tail - h = 1)

GetLoad ==
    /\ ~Fine
    /\ opc = "get" \/ (opc = "idle" /\ head # tail)
    /\ IF GetSeesNothing(head)
         THEN /\ OwnerDone                     \* returns nil
              /\ ReturnsNothing(OSaw)
         ELSE /\ oh' = head
              /\ obuf' = <<ring[Idx(head)]>>
              /\ opc' = "get_cas"
              /\ UNCHANGED <<ot, ocnt, nothingOK>>
    /\ UNCHANGED <<ring, head, tail, next, thiefv, batches, out>>

GetLoadHead ==                                 \* Fine only
    /\ Fine
    /\ opc = "get" \/ (opc = "idle" /\ head # tail)
    /\ oh' = head /\ opc' = "get_h"
    /\ UNCHANGED <<ring, head, tail, next, ot, obuf, ocnt, thiefv, histv>>

GetRead ==                                     \* Fine only
    /\ opc = "get_h"
    /\ IF GetSeesNothing(oh)
         THEN /\ OwnerDone
              /\ ReturnsNothing(OSaw)
         ELSE /\ obuf' = <<ring[Idx(oh)]>>
              /\ opc' = "get_cas"
              /\ UNCHANGED <<oh, ot, ocnt, nothingOK>>
    /\ UNCHANGED <<ring, head, tail, next, thiefv, batches, out>>

GetCAS ==
    /\ opc = "get_cas"
    /\ IF head = oh
         THEN /\ head' = oh + 1
              /\ Leave(obuf)
              /\ OwnerDone
              /\ UNCHANGED nothingOK
         ELSE IF Mutant = "GetNoRetry"
         THEN /\ OwnerDone                     \* gives up: returns nil
              /\ ReturnsNothing(OSaw)
              /\ UNCHANGED <<head, out>>
         ELSE /\ opc' = "get"                  \* a thief took it: retry
              /\ oh' = 0 /\ obuf' = <<>>
              /\ UNCHANGED <<head, out, ot, ocnt, nothingOK>>
    /\ UNCHANGED <<ring, tail, next, thiefv, batches>>

Get == GetLoad \/ GetLoadHead \/ GetRead \/ GetCAS

(***************************************************************************)
(* PutBatch (runqputbatch): load head, write as many slots as fit, then    *)
(* one tail store. Items that do not fit stay with the caller, not put.    *)
(* Coarse: the head load and the slot writes are one step: they land       *)
(* beyond the tail, and a thief that reads such a slot loaded a head that  *)
(* has moved, so its CAS fails. Fine: the head load (with the caller's     *)
(* choice of batch size), then one slot write per step.                    *)
(***************************************************************************)
PutBatchWrite ==
    \/ /\ ~Fine
       /\ opc = "idle" /\ next <= N /\ tail - head < Size  \* full: a no-op
       /\ \E m \in 1..(N - next + 1) :        \* the caller's batch: next..next+m-1
            LET k == Min(m, Size - (tail - head)) IN
            /\ ring' = [i \in DOMAIN ring |->
                          IF \E j \in 0..(k - 1) : Idx(tail + j) = i
                            THEN next + ((i - Idx(tail) + Size) % Size)
                            ELSE ring[i]]
            /\ ocnt' = k
       /\ ot' = tail /\ opc' = "pb_pub"
       /\ UNCHANGED <<head, tail, next, oh, obuf, thiefv, histv>>
    \/ /\ Fine                                  \* load head, size the batch
       /\ opc = "idle" /\ next <= N /\ tail - head < Size
       /\ \E m \in 1..(N - next + 1) : ocnt' = Min(m, Size - (tail - head))
       /\ ot' = tail /\ opc' = "pb_w"
       /\ UNCHANGED <<ring, head, tail, next, oh, obuf, thiefv, histv>>
    \/ /\ opc = "pb_w"                          \* Fine: one slot per step
       /\ ring' = [ring EXCEPT ![Idx(ot + Len(obuf))] = next + Len(obuf)]
       /\ obuf' = Append(obuf, next + Len(obuf))
       /\ opc' = IF Len(obuf) + 1 = ocnt THEN "pb_pub" ELSE "pb_w"
       /\ UNCHANGED <<head, tail, next, oh, ot, ocnt, thiefv, histv>>

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
(* so Go's "n > Size" inconsistency retry cannot fire here. Coarse: the    *)
(* reads are one step; Fine: one slot per step (obuf holds those read).    *)
(***************************************************************************)
DrainLoad ==
    /\ opc = "drain" \/ (opc = "idle" /\ head # tail)
    /\ IF head = tail
         THEN /\ OwnerDone                     \* returns nothing
              /\ ReturnsNothing(OSaw)
         ELSE /\ oh' = head /\ ot' = tail /\ opc' = "drain_cas"
              /\ UNCHANGED <<obuf, ocnt, nothingOK>>
    /\ UNCHANGED <<ring, head, tail, next, thiefv, batches, out>>

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
    \/ /\ ~Fine /\ opc = "drain_read"
       /\ Leave([i \in 1..(ot - oh) |-> ring[Idx(oh + i - 1)]])
       /\ ring' = [i \in DOMAIN ring |->
                     IF \E j \in oh..(ot - 1) : Idx(j) = i THEN 0 ELSE ring[i]]
       /\ OwnerDone
       /\ UNCHANGED <<head, tail, next, thiefv, batches, nothingOK>>
    \/ /\ Fine /\ opc = "drain_read"           \* one Swap(nil) per step
       /\ LET i == oh + Len(obuf) IN
          /\ Leave(<<ring[Idx(i)]>>)
          /\ ring' = [ring EXCEPT ![Idx(i)] = 0]
          /\ IF i + 1 = ot
               THEN OwnerDone
               ELSE /\ obuf' = Append(obuf, ring[Idx(i)])
                    /\ UNCHANGED <<opc, oh, ot, ocnt>>
       /\ UNCHANGED <<head, tail, next, thiefv, batches, nothingOK>>

Drain == DrainLoad \/ DrainCAS \/ DrainRead

(***************************************************************************)
(* StealHalf (runqgrab + runqsteal) by thief t: load head, load tail, take *)
(* n = ceil((tail-head)/2); n > Size \div 2 means the loads were           *)
(* inconsistent (head moved in between): retry. Copy the n slots one load  *)
(* at a time, CAS head forward by n; on failure retry from the loads. On   *)
(* success run the last item and publish the rest in the thief's own ring *)
(* (both leave the model). A retry goes to "retry", where the only step   *)
(* is a new head load within the same call.                               *)
(***************************************************************************)
ThiefDone(t) ==
    /\ tpc' = [tpc EXCEPT ![t] = "idle"]
    /\ thead' = [thead EXCEPT ![t] = 0]
    /\ tn' = [tn EXCEPT ![t] = 0]
    /\ tbuf' = [tbuf EXCEPT ![t] = <<>>]

ThiefRetry(t, pc) ==
    /\ tpc' = [tpc EXCEPT ![t] = pc]
    /\ thead' = [thead EXCEPT ![t] = 0]
    /\ tn' = [tn EXCEPT ![t] = 0]
    /\ tbuf' = [tbuf EXCEPT ![t] = <<>>]

StealLoadHead(t) ==
    /\ tpc[t] \in {"idle", "retry"}
    /\ thead' = [thead EXCEPT ![t] = head]
    /\ tpc' = [tpc EXCEPT ![t] = "load_tail"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, tn, tbuf, hands, histv>>

StealLoadTail(t) ==
    /\ tpc[t] = "load_tail"
    /\ LET len == Reg(tail - thead[t])
           n   == CASE Mutant = "StealAllNoCheck" -> len
                    [] Mutant = "StealRoundsDown" -> len \div 2
                    [] OTHER                      -> len - len \div 2
           inconsistent == /\ n > Half
                           /\ Mutant # "StealAllNoCheck"
                           /\ Mutant # "GrabPastFreeHalf" \/ n > Size
       IN  IF n = 0
             THEN /\ ThiefDone(t)              \* returns nothing
                  /\ ReturnsNothing(TSaw(t))
             ELSE IF inconsistent
             THEN /\ ThiefRetry(t, "retry")
                  /\ UNCHANGED nothingOK
             ELSE /\ tn' = [tn EXCEPT ![t] = n]
                  /\ tpc' = [tpc EXCEPT ![t] = "copy"]
                  /\ UNCHANGED <<thead, tbuf, nothingOK>>
    /\ UNCHANGED <<ring, head, tail, next, ownerv, hands, batches, out>>

StealCopy(t) ==                                \* one slot load per step
    /\ tpc[t] = "copy"
    /\ tbuf' = [tbuf EXCEPT ![t] = Append(@, ring[Idx(thead[t] + Len(tbuf[t]))])]
    /\ tpc' = [tpc EXCEPT ![t] = IF Len(tbuf[t]) + 1 = tn[t] THEN "cas" ELSE "copy"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, thead, tn, hands, histv>>

StealCAS(t) ==
    /\ tpc[t] = "cas"
    /\ IF Reg(head) = Reg(thead[t]) \/ Mutant = "StealNoCAS"
         \* The CAS writes thead + n, which is head + n unless a register
         \* that wrapped (IdxMod) fooled it: then the register holds head + n
         \* modulo IdxMod, head + n in exact terms. The plain store of
         \* StealNoCAS writes thead + n whatever head is.
         THEN /\ head' = IF Mutant = "StealNoCAS" THEN thead[t] + tn[t]
                                                  ELSE head + tn[t]
              /\ hands' = [hands EXCEPT ![t] = tbuf[t]]
              /\ tpc' = [tpc EXCEPT ![t] = "publish"]
              /\ thead' = [thead EXCEPT ![t] = 0]
              /\ tn' = [tn EXCEPT ![t] = 0]
              /\ tbuf' = [tbuf EXCEPT ![t] = <<>>]
         ELSE /\ ThiefRetry(t, "retry")        \* head moved: retry
              /\ UNCHANGED <<head, hands>>
    /\ UNCHANGED <<ring, tail, next, ownerv, histv>>

StealPublish(t) ==                             \* the thief's own tail store
    /\ tpc[t] = "publish"
    /\ Leave(hands[t])
    /\ hands' = [hands EXCEPT ![t] = <<>>]
    /\ tpc' = [tpc EXCEPT ![t] = "idle"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, thead, tn, tbuf, batches,
                   nothingOK>>

StealHalf(t) == StealLoadHead(t) \/ StealLoadTail(t) \/ StealCopy(t)
                \/ StealCAS(t) \/ StealPublish(t)

(***************************************************************************)
(* Len by thief t: load tail (kept in thead), load head (kept in tn), load *)
(* tail again; if it moved, retry; else return tail - head, which was the  *)
(* length at the head load. Only a result of 0 is checked: it must come    *)
(* from an empty ring (NothingOnlyWhenEmpty).                              *)
(***************************************************************************)
LenLoadTail(t) ==
    /\ tpc[t] \in {"idle", "len_retry"}
    /\ thead' = [thead EXCEPT ![t] = tail]
    /\ tpc' = [tpc EXCEPT ![t] = "len_h"]
    /\ UNCHANGED <<ring, head, tail, next, ownerv, tn, tbuf, hands, histv>>

LenLoadHead(t) ==
    /\ tpc[t] = "len_h"
    /\ IF Mutant = "LenOneAsEmpty" /\ Reg(thead[t] - head) = 1
         THEN /\ ThiefDone(t)                  \* the fast path: returns 0
              /\ ReturnsNothing(TSaw(t))
         ELSE /\ tn' = [tn EXCEPT ![t] = head]
              /\ tpc' = [tpc EXCEPT ![t] = "len_re"]
              /\ UNCHANGED <<thead, tbuf, nothingOK>>
    /\ UNCHANGED <<ring, head, tail, next, ownerv, hands, batches, out>>

LenRecheck(t) ==
    /\ tpc[t] = "len_re"
    /\ IF Reg(tail) = Reg(thead[t])
         THEN /\ ThiefDone(t)                  \* returns thead - tn
              /\ IF Reg(thead[t] - tn[t]) = 0
                   THEN ReturnsNothing(TSaw(t))
                   ELSE UNCHANGED nothingOK
         ELSE /\ ThiefRetry(t, "len_retry")
              /\ UNCHANGED nothingOK
    /\ UNCHANGED <<ring, head, tail, next, ownerv, hands, batches, out>>

Length(t) == LenLoadTail(t) \/ LenLoadHead(t) \/ LenRecheck(t)

(***************************************************************************)
(* The ghosts follow every step of every process: a take call in progress *)
(* has seen the ring empty if it was empty before its first step or after *)
(* any step since (anyone's). Outside take calls they are FALSE.          *)
(***************************************************************************)
GhostNext ==
    /\ osaw' = IF opc' \in OwnerTakePCs
                 THEN (IF opc \in OwnerTakePCs THEN osaw ELSE head = tail)
                      \/ head' = tail'
                 ELSE FALSE
    /\ tsaw' = [t \in Thieves |->
                 IF tpc'[t] \in ThiefTakePCs
                   THEN (IF tpc[t] \in ThiefTakePCs THEN tsaw[t] ELSE head = tail)
                        \/ head' = tail'
                   ELSE FALSE]

CoreNext ==
    \/ Put \/ Overflow \/ Get \/ PutBatch \/ Drain
    \/ \E t \in Thieves : StealHalf(t) \/ (WithLen /\ Length(t))

Next == CoreNext /\ GhostNext

Spec == Init /\ [][Next]_vars

\* A state constraint for IdxMod > 0 only: a CAS that a wrapped register
\* fooled can move head past tail, and thieves then keep "taking" from a
\* ring that looks long; the exact model needs none (head, tail <= N).
IndicesBounded == head <= N

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

\* Claimed by Drain's CAS, not read out yet (Fine: obuf holds those read).
DrainClaim == IF opc = "drain_read"
                THEN [i \in 1..(ot - oh - Len(obuf)) |->
                        ring[Idx(oh + Len(obuf) + i - 1)]]
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
    /\ nothingOK \in BOOLEAN
    /\ osaw \in BOOLEAN /\ tsaw \in [Thieves -> BOOLEAN]

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
         /\ tpc[t] \in {"copy", "cas"} => tn[t] <= Half /\ Len(tbuf[t]) <= tn[t]
         /\ Len(tbuf[t]) <= Half /\ Len(hands[t]) <= Half
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

\* A Get, StealHalf or Drain returns nothing, or a Len returns 0, only if
\* the ring was empty at some instant during the call. Items that remain in
\* the ring stay counted, so Conservation alone cannot see a take that gives
\* up, or one that rounds to nothing.
NothingOnlyWhenEmpty == nothingOK
=============================================================================
