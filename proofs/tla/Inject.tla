------------------------------- MODULE Inject --------------------------------
(***************************************************************************)
(* globalq.Inject: the lock-free injection buffer in front of the global  *)
(* queue (globalq/inject.go). A ring of Cap slots with a sequence word     *)
(* each, as offsets from the slot's lap: for position pos (lap = pos -     *)
(* pos % Cap) the word is lap while the slot is free for pos, lap+1 once   *)
(* pos is published, lap+Cap once it is drained. Producers claim a run of  *)
(* positions with one CAS of tail (PutBatch: at most the free count, Cap - *)
(* (tail - head)), then publish each slot (write the value, then the       *)
(* word). One consumer at a time (TryDrain's claim) takes published slots  *)
(* in order, frees each for the next lap, and stops at a claimed slot not  *)
(* yet published. Empty is tail = head.                                    *)
(*                                                                         *)
(* Actions carry the Go names: PutBatch (the claim), Publish (one slot),   *)
(* TryDrain (one slot taken, or the stop at an unpublished one).           *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Cap,       \* slots in the ring (InjectCap)
    Batches,   \* Batches[p]: the values producer p puts, one PutBatch per inner sequence
    Mutant     \* "none", or the globalq mutation this run models

\* The broken variants, named as globalq's mutations (globalq/mutation.go):
\*   InjectPublishBeforeWrite     a run's words are published before its values are written
\*   InjectBatchOverfills         PutBatch counts one free slot more than the ring has
\*   InjectDrainSkipsUnpublished  TryDrain takes a claimed, unpublished slot

Producers == DOMAIN Batches

\* The must-pass model's producers (Batches <- TwoProducers): producer 1 puts
\* one batch of three into a ring of two (it takes two positions, then the
\* rest after a drain), producer 2 two single Puts.
TwoProducers == << << <<1, 2, 3>> >>, << <<4>>, <<5>> >> >>

VARIABLES
    tail, head,  \* positions claimed and drained
    seq, val,    \* per slot: the word and the value (0: none written)
    todo,        \* todo[p]: the batches p has not yet claimed
    run,         \* run[p]: the positions p claimed and has not published, in order
    pend,        \* pend[p]: their values
    early,       \* early[p]: the words of run[p] are already published (mutant)
    out          \* the values drained, in order

vars == <<tail, head, seq, val, todo, run, pend, early, out>>

Lap(pos) == pos - (pos % Cap)
AllValues == UNION {UNION {{b[i] : i \in 1..Len(b)} : b \in {Batches[p][j] : j \in 1..Len(Batches[p])}} : p \in Producers}

Init ==
    /\ tail = 0 /\ head = 0
    /\ seq = [i \in 0..Cap-1 |-> 0]
    /\ val = [i \in 0..Cap-1 |-> 0]
    /\ todo = Batches
    /\ run = [p \in Producers |-> <<>>]
    /\ pend = [p \in Producers |-> <<>>]
    /\ early = [p \in Producers |-> FALSE]
    /\ out = <<>>

\* PutBatch's claim: n = min(len, free) positions from tail, one CAS.
PutBatch(p) ==
    /\ run[p] = <<>> /\ todo[p] # <<>>
    /\ LET b    == Head(todo[p])
           free == Cap - (tail - head) + (IF Mutant = "InjectBatchOverfills" THEN 1 ELSE 0)
           n    == IF Len(b) < free THEN Len(b) ELSE free
       IN /\ n > 0
          /\ tail' = tail + n
          /\ run' = [run EXCEPT ![p] = [i \in 1..n |-> tail + i - 1]]
          /\ pend' = [pend EXCEPT ![p] = SubSeq(b, 1, n)]
          /\ todo' = [todo EXCEPT ![p] = IF n = Len(b) THEN Tail(todo[p])
                                          ELSE <<SubSeq(b, n+1, Len(b))>> \o Tail(todo[p])]
          /\ IF Mutant = "InjectPublishBeforeWrite" /\ n > 1
               THEN /\ seq' = [i \in 0..Cap-1 |->
                                 IF \E k \in 1..n : (tail + k - 1) % Cap = i
                                 THEN LET pos == CHOOSE q \in tail..tail+n-1 : q % Cap = i IN Lap(pos) + 1
                                 ELSE seq[i]]
                    /\ early' = [early EXCEPT ![p] = TRUE]
               ELSE UNCHANGED <<seq, early>>
    /\ UNCHANGED <<head, val, out>>

\* Publish: the first claimed slot of p's run gets its value, then its word.
Publish(p) ==
    /\ run[p] # <<>>
    /\ LET pos == Head(run[p]) IN
       /\ val' = [val EXCEPT ![pos % Cap] = Head(pend[p])]
       /\ seq' = IF early[p] THEN seq ELSE [seq EXCEPT ![pos % Cap] = Lap(pos) + 1]
    /\ run' = [run EXCEPT ![p] = Tail(run[p])]
    /\ pend' = [pend EXCEPT ![p] = Tail(pend[p])]
    /\ early' = [early EXCEPT ![p] = IF Tail(run[p]) = <<>> THEN FALSE ELSE early[p]]
    /\ UNCHANGED <<tail, head, todo, out>>

\* TryDrain takes the oldest slot once it is published (or, mutant, once it
\* is claimed), and frees it for the next lap.
TryDrain ==
    /\ head < tail
    /\ \/ seq[head % Cap] = Lap(head) + 1
       \/ Mutant = "InjectDrainSkipsUnpublished"
    /\ out' = Append(out, val[head % Cap])
    /\ val' = [val EXCEPT ![head % Cap] = 0]
    /\ seq' = [seq EXCEPT ![head % Cap] = Lap(head) + Cap]
    /\ head' = head + 1
    /\ UNCHANGED <<tail, todo, run, pend, early>>

Done == /\ \A p \in Producers : todo[p] = <<>> /\ run[p] = <<>>
        /\ head = tail
        /\ UNCHANGED vars

Next == \/ \E p \in Producers : PutBatch(p) \/ Publish(p)
        \/ TryDrain
        \/ Done

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
Range(s) == {s[i] : i \in 1..Len(s)}
Returned(p) == todo[p] = <<>> /\ run[p] = <<>>
Flat(p) == LET F[k \in 0..Len(Batches[p])] == IF k = 0 THEN <<>> ELSE F[k-1] \o Batches[p][k]
           IN F[Len(Batches[p])]

TypeOK == /\ head <= tail
          /\ \A i \in 1..Len(out) : out[i] \in AllValues \cup {0}

\* The ring never holds more positions than slots.
Bound == tail - head <= Cap

\* Every value drained was put, and is drained once.
Conservation == /\ \A i \in 1..Len(out) : out[i] \in AllValues
                /\ Cardinality(Range(out)) = Len(out)

\* Each producer's values come out in the order it put them.
FIFO == \A p \in Producers :
          LET mine == SelectSeq(out, LAMBDA v : v \in Range(Flat(p)))
          IN mine = SubSeq(Flat(p), 1, Len(mine))

\* Empty (tail = head) is sound: every value of a producer whose puts have
\* all returned is drained by then; and at the end, every value is.
EmptySound == tail = head =>
                \A p \in Producers : Returned(p) => Range(Flat(p)) \subseteq Range(out)
=============================================================================
