-------------------------------- MODULE Steal --------------------------------
(***************************************************************************)
(* stealing.Stealer: who steals from whom. NP Ps each own a queue (a ring  *)
(* and a runnext slot) and run it as its owner: Put, PutNext, Get. A P     *)
(* whose queue is empty may Steal (stealWork): StealTries passes, each in  *)
(* the order of the runtime's randomOrder (a random start and a random     *)
(* stride coprime with NP), skipping itself and the Ps the idle mask marks *)
(* idle, and trying StealHalf (runqsteal) on each other P, with stealNext  *)
(* (the victim's runnext task) on the last pass only. A P with an empty    *)
(* queue may go idle (Set) and be woken (Clear).                           *)
(*                                                                         *)
(* Each Go operation is an action of the same name, the disjunction of its *)
(* steps, selected by the P's program counter pc[p]. The idle test of each *)
(* victim (IdleMask.Read, one atomic load) is its own step (Visit), and so *)
(* is each StealHalf, which is one step here: runnext.Queue.StealHalf is   *)
(* linearizable, as Runnext.tla and Ring.tla check step by step. Like the  *)
(* real queue, a StealHalf may take fewer than half of the ring, rounded   *)
(* up (the owner can put more between the thief's loads and its CAS), but  *)
(* never none when the ring holds tasks and never more than that half.     *)
(*                                                                         *)
(* Tasks are the naturals 1..N, made in order by the owners; 0 is an empty *)
(* slot. Rings hold at most RingSize tasks: an owner puts nothing into a   *)
(* full ring (Go's overflow to the global queue is globalq's, GlobalQ.tla).*)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    NP,        \* the number of Ps, 0..NP-1
    Thieves,   \* the Ps whose owners also steal (a subset of 0..NP-1)
    N,         \* the owners make tasks 1..N
    RingSize,  \* the most a ring holds in the model
    Tries,     \* passes per Steal: stealing.StealTries
    Mutant     \* "none" is the real algorithm; any other name breaks one step

\* The broken variants, each a change inside one step, each with the name
\* of the stealing mutation (stealing/mutation.go) it models:
\*   StrideNotCoprime   a pass's stride is any of 1..NP, not only the coprime ones
\*   RunnextEveryPass   every pass steals with stealNext, not only the last
\*   StealsFromSelf     a pass does not skip the thief's own P
\*   SkipsNonIdle       Visit's idle test is inverted: it skips the busy Ps
Mutants == {"none", "StrideNotCoprime", "RunnextEveryPass", "StealsFromSelf",
            "SkipsNonIdle"}

ASSUME /\ NP \in Nat /\ NP >= 2
       /\ Thieves \subseteq 0..(NP - 1)
       /\ N \in Nat /\ N >= 1
       /\ RingSize \in Nat /\ RingSize >= 1
       /\ Tries \in Nat /\ Tries >= 2
       /\ Mutant \in Mutants

Ps    == 0..(NP - 1)
Tasks == 1..N
Vals  == 0..N
Range(s) == {s[i] : i \in DOMAIN s}
Occ(s, v) == Cardinality({i \in DOMAIN s : s[i] = v})

RECURSIVE GCD(_, _)
GCD(a, b) == IF b = 0 THEN a ELSE GCD(b, a % b)

\* Order.Reset's list: the strides in 1..n that share no factor with n.
Coprimes(n) == {s \in 1..n : GCD(s, n) = 1}

\* The strides Order.Start picks from.
Strides == IF Mutant = "StrideNotCoprime" THEN 1..NP ELSE Coprimes(NP)

(***************************************************************************)
(* A thief's locals, th[p]: pc is "run" (the owner, not stealing), "visit" *)
(* (the pass is at position pos) or "steal" (StealHalf from P pos next);   *)
(* try is the pass, 0..Tries-1; pos, inc and cnt are the pass's Enum       *)
(* (position, stride, Ps visited); seen is the positions the pass visited, *)
(* in order (history, for VisitsEachOnce).                                 *)
(***************************************************************************)
Idle0 == [pc |-> "run", try |-> 0, pos |-> 0, inc |-> 0, cnt |-> 0, seen |-> <<>>]

VARIABLES
    ring, slot,        \* each P's queue: its ring (oldest first) and runnext task
    idle,              \* the IdleMask
    next,              \* the next task an owner makes; 1..next-1 are made
    th,                \* the thieves' locals (see Idle0)
    \* history, for the invariants only
    out,       \* out[x]: times task x ran (capped at 2)
    missed,    \* a pass passed over a P that was not idle and had work it could take
    early,     \* a runnext task was taken on a pass other than the last
    over       \* a StealHalf took more than half of a ring, rounded up, or a task and runnext

vars == <<ring, slot, idle, next, th, out, missed, early, over>>

Init ==
    /\ ring = [p \in Ps |-> <<>>]
    /\ slot = [p \in Ps |-> 0]
    /\ idle = [p \in Ps |-> FALSE]
    /\ next = 1
    /\ th = [p \in Ps |-> Idle0]
    /\ out = [x \in Tasks |-> 0]
    /\ missed = FALSE /\ early = FALSE /\ over = FALSE

Run(x) == out' = [out EXCEPT ![x] = IF @ < 2 THEN @ + 1 ELSE 2]

Busy(p)  == ring[p] # <<>> \/ slot[p] # 0
Owner(p) == th[p].pc = "run" /\ ~idle[p]

(***************************************************************************)
(* The owner's operations on its own queue (runnext.Queue: runqput,        *)
(* runqput next=true, runqget), one step each.                             *)
(***************************************************************************)
Put(p) ==
    /\ Owner(p) /\ next <= N /\ Len(ring[p]) < RingSize
    /\ ring' = [ring EXCEPT ![p] = Append(@, next)]
    /\ next' = next + 1
    /\ UNCHANGED <<slot, idle, th, out, missed, early, over>>

PutNext(p) ==                        \* the displaced runnext task goes to the ring
    /\ Owner(p) /\ next <= N /\ (slot[p] = 0 \/ Len(ring[p]) < RingSize)
    /\ slot' = [slot EXCEPT ![p] = next]
    /\ ring' = IF slot[p] = 0 THEN ring ELSE [ring EXCEPT ![p] = Append(@, slot[p])]
    /\ next' = next + 1
    /\ UNCHANGED <<idle, th, out, missed, early, over>>

Get(p) ==                            \* runnext first, then the ring's oldest
    /\ Owner(p) /\ Busy(p)
    /\ IF slot[p] # 0
         THEN /\ Run(slot[p]) /\ slot' = [slot EXCEPT ![p] = 0] /\ UNCHANGED ring
         ELSE /\ Run(Head(ring[p])) /\ ring' = [ring EXCEPT ![p] = Tail(@)] /\ UNCHANGED slot
    /\ UNCHANGED <<idle, next, th, missed, early, over>>

(***************************************************************************)
(* IdleMask.Set (pidleput) and Clear (pidleget). Only a P with an empty    *)
(* queue, not in a Steal, goes idle; an idle P does nothing until Clear.   *)
(***************************************************************************)
Set(p) ==
    /\ Owner(p) /\ ~Busy(p)
    /\ idle' = [idle EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<ring, slot, next, th, out, missed, early, over>>

Clear(p) ==
    /\ idle[p]
    /\ idle' = [idle EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<ring, slot, next, th, out, missed, early, over>>

(***************************************************************************)
(* Steal (stealWork), by the owner of a thief P p once its queue is empty. *)
(* Only the idle test of a victim (IdleMask.Read) and StealHalf touch      *)
(* shared memory, so each is a step; the rest of a pass (Enum.Next, the    *)
(* thief's test against its own index, the end of a pass and the random    *)
(* start of the next, Order.Start) touches only the thief's locals and is  *)
(* folded into the step before it.                                         *)
(*   StealBegin  the queue is empty: Start the first pass                  *)
(*   Visit       the Enum's position: skip it if idle, else go to StealHalf*)
(*   StealHalf   runqsteal on the victim; a task ends the Steal (the thief *)
(*               runs it); nothing goes on to the next position            *)
(***************************************************************************)
StealNext(t) == t.try = Tries - 1 \/ Mutant = "RunnextEveryPass"

IsSelf(t, p) == t.pos = p /\ Mutant # "StealsFromSelf"

\* Enum.Next, from the position the pass is at; the thief's own position
\* is passed over at once (the pp == p2 test).
Adv(t)         == [t EXCEPT !.seen = Append(@, t.pos), !.pos = (@ + t.inc) % NP, !.cnt = @ + 1]
SkipSelf(t, p) == IF t.cnt < NP /\ IsSelf(t, p) THEN Adv(t) ELSE t

\* Order.Start: a pass from start s with stride c.
Start(t, p, s, c) ==
    SkipSelf([t EXCEPT !.pc = "visit", !.pos = s, !.inc = c, !.cnt = 0, !.seen = <<>>], p)

\* The locals after position t.pos found nothing: the next position, or,
\* at the end of the pass, the next pass from a random start and stride, or,
\* after the last pass, the end of the Steal (it returns nil). (Only the
\* start of a new pass chooses, so that the other steps have one successor.)
MoveOn(p, t) ==
    LET u == SkipSelf(Adv(t), p) IN
    IF u.cnt < NP THEN th' = [th EXCEPT ![p] = [u EXCEPT !.pc = "visit"]]
    ELSE IF t.try < Tries - 1
      THEN \E s \in Ps, c \in Strides :
             th' = [th EXCEPT ![p] = Start([u EXCEPT !.try = @ + 1], p, s, c)]
    ELSE th' = [th EXCEPT ![p] = Idle0]

\* What a StealHalf with stealNext sn could take from v now.
HasWork(v, sn) == ring[v] # <<>> \/ (sn /\ slot[v] # 0)

StealBegin(p) ==
    /\ p \in Thieves /\ Owner(p) /\ ~Busy(p)
    /\ \E s \in Ps, c \in Strides : th' = [th EXCEPT ![p] = Start(Idle0, p, s, c)]
    /\ UNCHANGED <<ring, slot, idle, next, out, missed, early, over>>

Visit(p) ==
    /\ th[p].pc = "visit"
    /\ LET t    == th[p]
           v    == t.pos
           self == IsSelf(t, p)
           skip == IF Mutant = "SkipsNonIdle" THEN ~idle[v] ELSE idle[v]
       IN IF self \/ skip
            THEN /\ MoveOn(p, t)
                 /\ missed' = (missed \/ (~self /\ ~idle[v] /\ HasWork(v, StealNext(t))))
            ELSE /\ th' = [th EXCEPT ![p].pc = "steal"]
                 /\ UNCHANGED missed
    /\ UNCHANGED <<ring, slot, idle, next, out, early, over>>

StealHalf(p) ==
    /\ th[p].pc = "steal"
    /\ LET t == th[p]
           v == t.pos
           q == ring[v]
           L == Len(q)
       IN IF L > 0
            THEN \E k \in 1..(L - L \div 2) :   \* at least one, at most half rounded up
                   /\ ring' = [ring EXCEPT ![v] = SubSeq(q, k + 1, L),
                                           ![p] = @ \o SubSeq(q, 1, k - 1)]
                   /\ Run(q[k])                 \* the newest taken: the thief runs it
                   /\ over' = (over \/ k > L - L \div 2)
                   /\ th' = [th EXCEPT ![p] = Idle0]
                   /\ UNCHANGED <<slot, early>>
          ELSE IF StealNext(t) /\ slot[v] # 0
            THEN /\ slot' = [slot EXCEPT ![v] = 0]
                 /\ Run(slot[v])
                 /\ early' = (early \/ t.try # Tries - 1)
                 /\ th' = [th EXCEPT ![p] = Idle0]
                 /\ UNCHANGED <<ring, over>>
          ELSE /\ MoveOn(p, t)                   \* nothing: on to the next P
               /\ UNCHANGED <<ring, slot, out, early, over>>
    /\ UNCHANGED <<idle, next, missed>>

Pass(p)  == Visit(p) \/ StealHalf(p)
Steal(p) == StealBegin(p) \/ Pass(p)

Next ==
    \E p \in Ps :
        Put(p) \/ PutNext(p) \/ Get(p) \/ Set(p) \/ Clear(p) \/ Steal(p)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
ThiefLocals ==
    [pc : {"run", "visit", "steal"}, try : 0..(Tries - 1), pos : Ps, inc : 0..NP,
     cnt : 0..NP, seen : Seq(Ps)]

TypeOK ==
    /\ ring \in [Ps -> Seq(Tasks)] /\ slot \in [Ps -> Vals]
    /\ idle \in [Ps -> BOOLEAN]
    /\ next \in 1..(N + 1)
    /\ th \in [Ps -> ThiefLocals]
    /\ out \in [Tasks -> 0..2]
    /\ missed \in BOOLEAN /\ early \in BOOLEAN /\ over \in BOOLEAN

\* Every task made is in exactly one place, a ring or a runnext slot, or has
\* run exactly once; nothing else is anywhere.
RECURSIVE RingOcc(_, _)
RingOcc(S, x) == IF S = {} THEN 0
                 ELSE LET p == CHOOSE p \in S : TRUE IN Occ(ring[p], x) + RingOcc(S \ {p}, x)

Conservation ==
    \A x \in Tasks :
        Cardinality({p \in Ps : slot[p] = x}) + RingOcc(Ps, x) + out[x]
            = IF x < next THEN 1 ELSE 0

\* A thief takes at most half of one victim's ring, rounded up, or one
\* runnext task from a victim whose ring is empty.
AtMostHalfPlusRunnext == ~over

\* One pass visits each P at most once (so, at its end, each exactly once).
VisitsEachOnce ==
    \A p \in Ps : Cardinality(Range(th[p].seen)) = Len(th[p].seen)

\* A thief never steals from its own P.
NeverFromSelf ==
    \A p \in Ps : th[p].pc = "steal" => th[p].pos # p

\* Runnext tasks are taken only on the last pass.
RunnextOnlyOnLastPass == ~early

\* A pass never passes over a P that is not idle and holds work it could
\* take: so a Steal that finds nothing saw every busy P empty at its turn.
NoWorkMissed == ~missed
=============================================================================
