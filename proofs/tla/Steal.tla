-------------------------------- MODULE Steal --------------------------------
(***************************************************************************)
(* stealing.Stealer: who steals from whom. NP Ps each own a queue (a ring  *)
(* and a runnext slot) and run it as its owner: Put, PutNext, Get. A P     *)
(* whose queue is empty may Steal (stealWork): Tries passes, each in the   *)
(* order of the runtime's randomOrder (a random start and a random stride  *)
(* coprime with NP), skipping itself and the Ps the idle mask marks idle,  *)
(* and trying StealHalf (runqsteal) on each other P, with stealNext (the   *)
(* victim's runnext task) on the last pass only. A P with an empty queue   *)
(* may go idle (Set) and be woken (Clear).                                 *)
(*                                                                         *)
(* Each Go operation is an action of the same name, the disjunction of its *)
(* steps, selected by the P's program counter th[p].pc. The idle test of   *)
(* each victim (IdleMask.Read, one atomic load) is a step (Visit), and     *)
(* StealHalf is three: StealLoad reads the victim's ring (runqgrab's loads *)
(* of head and tail: n = half of what it saw, rounded up) or, on an empty  *)
(* ring, takes its runnext task; StealCAS takes the oldest n tasks if the  *)
(* ring's head is still the one the load saw (the CAS on head; else the    *)
(* load is retried) into the thief's hands; StealPublish puts all but the  *)
(* newest into the thief's ring (the thief's store of its tail) and runs   *)
(* that one. Between StealCAS and StealPublish the rest of the half is in  *)
(* flight: in no ring, so a third thief finds the thief's ring empty.      *)
(* Ring.tla checks runqgrab's own steps, Runnext.tla the slot and its      *)
(* steal delay.                                                            *)
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

\* The broken variants, each a change inside one step. The first six have
\* the name of the stealing mutation (stealing/mutation.go) they model; the
\* last two are faults of the victim's queue (runnext.Queue.StealHalf,
\* runqgrab) as a pass sees it:
\*   StrideNotCoprime   a pass's stride is any of 1..NP, not only the coprime ones
\*   RunnextEveryPass   every pass steals with stealNext, not only the last
\*   StealsFromSelf     a pass does not skip the thief's own P
\*   SkipsNonIdle       Visit's idle test is inverted: it skips the busy Ps
\*   PassEndsEarly      a pass ends one position before it has visited NP
\*   NoRunnextPass      a Steal ends after Tries - 1 passes: the runnext pass is missing
\*   RunnextBeforeRing  StealLoad with stealNext takes the runnext task before
\*                      it looks at the ring
\*   StealRoundsDown    StealLoad takes half the ring rounded down: nothing from a ring of 1
\* and one fault of the P that marks itself idle (the executor's
\* findRunnable, pidleput):
\*   IdleWhileBusy      Set marks a P idle while its queue holds a task
Mutants == {"none", "StrideNotCoprime", "RunnextEveryPass", "StealsFromSelf",
            "SkipsNonIdle", "PassEndsEarly", "NoRunnextPass", "RunnextBeforeRing",
            "StealRoundsDown", "IdleWhileBusy"}

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
Half(l) == IF Mutant = "StealRoundsDown" THEN l \div 2 ELSE l - l \div 2

RECURSIVE GCD(_, _)
GCD(a, b) == IF b = 0 THEN a ELSE GCD(b, a % b)

\* Order.Reset's list: the strides in 1..n that share no factor with n.
Coprimes(n) == {s \in 1..n : GCD(s, n) = 1}

\* The strides Order.Start picks from.
Strides == IF Mutant = "StrideNotCoprime" THEN 1..NP ELSE Coprimes(NP)

\* The positions a pass visits before it ends (Enum.Done).
PassLen == IF Mutant = "PassEndsEarly" THEN NP - 1 ELSE NP

\* The passes a Steal makes before it returns nil.
Passes == IF Mutant = "NoRunnextPass" THEN Tries - 1 ELSE Tries

(***************************************************************************)
(* A thief's locals, th[p]: pc is "run" (the owner, not stealing), "visit" *)
(* (the pass is at position pos), "load", "cas" or "publish" (the steps of *)
(* StealHalf on P pos); try is the pass, 0..Tries-1; pos, inc and cnt are  *)
(* the pass's Enum (position, stride, Ps visited); seen is the positions   *)
(* the pass visited, in order (history, for the pass properties); n and hd *)
(* are what StealLoad saw (half the ring, rounded up, and its head task);  *)
(* tk is the task StealCAS took to run.                                    *)
(***************************************************************************)
Idle0 == [pc |-> "run", try |-> 0, pos |-> 0, inc |-> 0, cnt |-> 0, seen |-> <<>>,
          n |-> 0, hd |-> 0, tk |-> 0]

VARIABLES
    ring, slot,        \* each P's queue: its ring (oldest first) and runnext task
    hands,             \* hands[p]: the rest of a half P p took, in flight to its ring
    idle,              \* the IdleMask
    next,              \* the next task an owner makes; 1..next-1 are made
    th,                \* the thieves' locals (see Idle0)
    out,               \* out[x]: times task x ran (capped at 2)
    \* History, for the invariants only: each records that a take or a pass
    \* broke one rule, at the step that did it (the step knows the pass, the
    \* victim, the source and what the victim held).
    missed,    \* Visit passed over a P that was not idle and had work the pass could take
    blind,     \* StealLoad found nothing although the ring, or with stealNext the slot, held a task
    early,     \* a runnext task was taken on a pass other than the last
    nextFirst, \* a runnext task was taken from a victim whose ring held tasks
    over,      \* StealCAS took more than half of the ring, rounded up
    short,     \* a pass ended without a task before it had visited every P
    gaveUp     \* a Steal returned nil before it had made Tries passes

history == <<missed, blind, early, nextFirst, over, short, gaveUp>>
vars == <<ring, slot, hands, idle, next, th, out, history>>

Init ==
    /\ ring = [p \in Ps |-> <<>>]
    /\ slot = [p \in Ps |-> 0]
    /\ hands = [p \in Ps |-> <<>>]
    /\ idle = [p \in Ps |-> FALSE]
    /\ next = 1
    /\ th = [p \in Ps |-> Idle0]
    /\ out = [x \in Tasks |-> 0]
    /\ missed = FALSE /\ blind = FALSE /\ early = FALSE /\ nextFirst = FALSE
    /\ over = FALSE /\ short = FALSE /\ gaveUp = FALSE

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
    /\ UNCHANGED <<slot, hands, idle, th, out, history>>

PutNext(p) ==                        \* the displaced runnext task goes to the ring
    /\ Owner(p) /\ next <= N /\ (slot[p] = 0 \/ Len(ring[p]) < RingSize)
    /\ slot' = [slot EXCEPT ![p] = next]
    /\ ring' = IF slot[p] = 0 THEN ring ELSE [ring EXCEPT ![p] = Append(@, slot[p])]
    /\ next' = next + 1
    /\ UNCHANGED <<hands, idle, th, out, history>>

Get(p) ==                            \* runnext first, then the ring's oldest
    /\ Owner(p) /\ Busy(p)
    /\ IF slot[p] # 0
         THEN /\ Run(slot[p]) /\ slot' = [slot EXCEPT ![p] = 0] /\ UNCHANGED ring
         ELSE /\ Run(Head(ring[p])) /\ ring' = [ring EXCEPT ![p] = Tail(@)] /\ UNCHANGED slot
    /\ UNCHANGED <<hands, idle, next, th, history>>

(***************************************************************************)
(* IdleMask.Set (pidleput) and Clear (pidleget). Only a P with an empty    *)
(* queue, not in a Steal, goes idle; an idle P does nothing until Clear.   *)
(***************************************************************************)
Set(p) ==
    /\ Owner(p) /\ (~Busy(p) \/ Mutant = "IdleWhileBusy")
    /\ idle' = [idle EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<ring, slot, hands, next, th, out, history>>

Clear(p) ==
    /\ idle[p]
    /\ idle' = [idle EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<ring, slot, hands, next, th, out, history>>

(***************************************************************************)
(* Steal (stealWork), by the owner of a thief P p once its queue is empty. *)
(* Only the idle test of a victim (IdleMask.Read) and StealHalf's loads,   *)
(* CAS and publishing store touch shared memory, so each is a step; the    *)
(* rest of a pass (Enum.Next, the thief's test against its own index, the  *)
(* end of a pass and the random start of the next, Order.Start) touches   *)
(* only the thief's locals and is folded into the step before it.          *)
(*   StealBegin   the queue is empty: Start the first pass                 *)
(*   Visit        the Enum's position: skip it if idle, else StealLoad     *)
(*   StealLoad    the victim's ring holds L > 0 tasks: remember n =        *)
(*                ceil(L/2) and its head, go to StealCAS; empty: with      *)
(*                stealNext take its runnext task (the Steal ends, the     *)
(*                thief runs it), else nothing: on to the next position    *)
(*   StealCAS     the head is unchanged: the oldest n leave the victim,    *)
(*                the newest of them to run, the rest in flight; else      *)
(*                StealLoad again (runqgrab's retry)                       *)
(*   StealPublish the rest into the thief's ring; the thief runs the task  *)
(***************************************************************************)
StealNext(t) == t.try = Tries - 1 \/ Mutant = "RunnextEveryPass"

IsSelf(t, p) == t.pos = p /\ Mutant # "StealsFromSelf"

\* Enum.Next, from the position the pass is at; the thief's own position
\* is passed over at once (the pp == p2 test).
Adv(t)         == [t EXCEPT !.seen = Append(@, t.pos), !.pos = (@ + t.inc) % NP, !.cnt = @ + 1]
SkipSelf(t, p) == IF t.cnt < PassLen /\ IsSelf(t, p) THEN Adv(t) ELSE t

\* Order.Start: a pass from start s with stride c.
Start(t, p, s, c) ==
    SkipSelf([t EXCEPT !.pc = "visit", !.pos = s, !.inc = c, !.cnt = 0, !.seen = <<>>], p)

\* The locals after position t.pos found nothing: the next position, or,
\* at the end of the pass, the next pass from a random start and stride, or,
\* after the last pass, the end of the Steal (it returns nil). short and
\* gaveUp record a pass that ends before it has visited every P and a Steal
\* that gives up before its last pass. (Only the start of a new pass
\* chooses, so that the other steps have one successor.)
MoveOn(p, t) ==
    LET u == SkipSelf(Adv(t), p) IN
    IF u.cnt < PassLen
      THEN /\ th' = [th EXCEPT ![p] = [u EXCEPT !.pc = "visit"]]
           /\ UNCHANGED <<short, gaveUp>>
      ELSE /\ short' = (short \/ Len(u.seen) < NP)
           /\ IF t.try < Passes - 1
                THEN /\ \E s \in Ps, c \in Strides :
                          th' = [th EXCEPT ![p] = Start([u EXCEPT !.try = @ + 1], p, s, c)]
                     /\ UNCHANGED gaveUp
                ELSE /\ th' = [th EXCEPT ![p] = Idle0]
                     /\ gaveUp' = (gaveUp \/ t.try < Tries - 1)

\* What a StealHalf with stealNext sn could take from v now.
HasWork(v, sn) == ring[v] # <<>> \/ (sn /\ slot[v] # 0)

StealBegin(p) ==
    /\ p \in Thieves /\ Owner(p) /\ ~Busy(p)
    /\ \E s \in Ps, c \in Strides : th' = [th EXCEPT ![p] = Start(Idle0, p, s, c)]
    /\ UNCHANGED <<ring, slot, hands, idle, next, out, history>>

Visit(p) ==
    /\ th[p].pc = "visit"
    /\ LET t    == th[p]
           v    == t.pos
           self == IsSelf(t, p)
           skip == IF Mutant = "SkipsNonIdle" THEN ~idle[v] ELSE idle[v]
       IN IF self \/ skip
            THEN /\ MoveOn(p, t)
                 /\ missed' = (missed \/ (~self /\ ~idle[v] /\ HasWork(v, StealNext(t))))
            ELSE /\ th' = [th EXCEPT ![p].pc = "load"]
                 /\ UNCHANGED <<missed, short, gaveUp>>
    /\ UNCHANGED <<ring, slot, hands, idle, next, out, blind, early, nextFirst, over>>

StealLoad(p) ==
    /\ th[p].pc = "load"
    /\ LET t     == th[p]
           v     == t.pos
           sn    == StealNext(t)
           L     == Len(ring[v])
           n     == Half(L)
           slotq == sn /\ slot[v] # 0 /\ (L = 0 \/ Mutant = "RunnextBeforeRing")
       IN IF slotq
            THEN /\ slot' = [slot EXCEPT ![v] = 0]
                 /\ Run(slot[v])
                 /\ early' = (early \/ t.try # Tries - 1)
                 /\ nextFirst' = (nextFirst \/ L > 0)
                 /\ th' = [th EXCEPT ![p] = Idle0]
                 /\ UNCHANGED <<missed, blind, over, short, gaveUp>>
          ELSE IF n > 0
            THEN /\ th' = [th EXCEPT ![p] = [t EXCEPT !.pc = "cas", !.n = n, !.hd = ring[v][1]]]
                 /\ UNCHANGED <<slot, out, history>>
          ELSE /\ MoveOn(p, t)                   \* nothing: on to the next P
               /\ blind' = (blind \/ HasWork(v, sn))
               /\ UNCHANGED <<slot, out, missed, early, nextFirst, over>>
    /\ UNCHANGED <<ring, hands, idle, next>>

StealCAS(p) ==
    /\ th[p].pc = "cas"
    /\ LET t == th[p]
           v == t.pos
           q == ring[v]
           L == Len(q)
       IN IF q # <<>> /\ q[1] = t.hd   \* head unchanged: the owner can only have put more
            THEN /\ ring' = [ring EXCEPT ![v] = SubSeq(q, t.n + 1, L)]
                 /\ hands' = [hands EXCEPT ![p] = SubSeq(q, 1, t.n - 1)]
                 /\ th' = [th EXCEPT ![p] = [t EXCEPT !.pc = "publish", !.tk = q[t.n]]]
                 /\ over' = (over \/ t.n > L - L \div 2)
            ELSE /\ th' = [th EXCEPT ![p] = [t EXCEPT !.pc = "load", !.n = 0, !.hd = 0]]
                 /\ UNCHANGED <<ring, hands, over>>
    /\ UNCHANGED <<slot, idle, next, out, missed, blind, early, nextFirst, short, gaveUp>>

StealPublish(p) ==
    /\ th[p].pc = "publish"
    /\ ring' = [ring EXCEPT ![p] = @ \o hands[p]]
    /\ hands' = [hands EXCEPT ![p] = <<>>]
    /\ Run(th[p].tk)
    /\ th' = [th EXCEPT ![p] = Idle0]
    /\ UNCHANGED <<slot, idle, next, history>>

StealHalf(p) == StealLoad(p) \/ StealCAS(p) \/ StealPublish(p)
Pass(p)      == Visit(p) \/ StealHalf(p)
Steal(p)     == StealBegin(p) \/ Pass(p)

Next ==
    \E p \in Ps :
        Put(p) \/ PutNext(p) \/ Get(p) \/ Set(p) \/ Clear(p) \/ Steal(p)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Invariants.                                                             *)
(***************************************************************************)
ThiefLocals ==
    [pc : {"run", "visit", "load", "cas", "publish"}, try : 0..(Tries - 1), pos : Ps,
     inc : 0..NP, cnt : 0..NP, seen : Seq(Ps), n : 0..RingSize, hd : Vals, tk : Vals]

TypeOK ==
    /\ ring \in [Ps -> Seq(Tasks)] /\ slot \in [Ps -> Vals] /\ hands \in [Ps -> Seq(Tasks)]
    /\ idle \in [Ps -> BOOLEAN]
    /\ next \in 1..(N + 1)
    /\ th \in [Ps -> ThiefLocals]
    /\ out \in [Tasks -> 0..2]
    /\ \A i \in 1..7 : history[i] \in BOOLEAN

\* Every task made is in exactly one place: a ring, a slot, in flight (a
\* thief's hands, or the task a thief took to run), or it ran exactly once.
\* Nothing else is anywhere.
RECURSIVE SumOver(_, _)
SumOver(f(_), S) == IF S = {} THEN 0
                    ELSE LET p == CHOOSE p \in S : TRUE IN f(p) + SumOver(f, S \ {p})

Conservation ==
    \A x \in Tasks :
        LET Here(p) == Occ(ring[p], x) + Occ(hands[p], x)
                       + (IF slot[p] = x THEN 1 ELSE 0) + (IF th[p].tk = x THEN 1 ELSE 0)
        IN  SumOver(Here, Ps) + out[x] = IF x < next THEN 1 ELSE 0

\* A thief takes at most half of one victim's ring, rounded up, as the ring
\* was at its CAS, or one runnext task (over records a take beyond half).
AtMostHalfPlusRunnext == ~over

\* One pass visits each P at most once.
VisitsEachOnce ==
    \A p \in Ps : Cardinality(Range(th[p].seen)) = Len(th[p].seen)

\* A pass that ends without a task has visited every P (its own included).
PassComplete == ~short

\* A thief never steals from its own P.
NeverFromSelf ==
    \A p \in Ps : th[p].pc \in {"load", "cas", "publish"} => th[p].pos # p

\* A Steal returns nil only after Tries passes: the last one, the only one
\* that may take a runnext task, is never left out.
RunnextPassMade == ~gaveUp

\* Runnext tasks are taken only on the last pass.
RunnextOnlyOnLastPass == ~early

\* A runnext task is taken only from a victim whose ring was empty then:
\* the ring first, as runqgrab does.
RingBeforeRunnext == ~nextFirst

\* Visit never passes over a P that is not idle and holds work the pass
\* could take (a ring task, or on the last pass a runnext task).
NoWorkMissed == ~missed

\* StealHalf returns nothing only when empty: StealLoad moves on only if
\* the victim's ring was empty and, with stealNext, so was its slot, at the
\* instant of its load. (Tasks in flight to a P, taken from a victim by a
\* thief and not yet published in the thief's ring, are in no ring.)
StealNilOnlyWhenEmpty == ~blind

\* An idle P's queue is empty: a P marks itself idle only once its queue
\* is empty, and nobody puts into an idle P's queue (its owner does
\* nothing until Clear; a thief publishes only into its own ring). Without
\* it, a P whose tasks thieves skip could hold work that no pass sees.
IdleEmpty == \A p \in Ps : idle[p] => ~Busy(p) /\ hands[p] = <<>>

\* What the pass properties add up to, for a Steal round that returns nil
\* (stealWork finding nothing): its last pass had stealNext
\* (RunnextPassMade, RunnextOnlyOnLastPass), visited every P once
\* (PassComplete, VisitsEachOnce, NeverFromSelf), and found each other P,
\* at the instant it looked, idle (so empty: only a P with an empty queue
\* goes idle: IdleEmpty) or with an empty ring and runnext slot (NoWorkMissed,
\* StealNilOnlyWhenEmpty). That is all that holds: a P looked at early in
\* the pass may be given work before the pass ends, and the rest of a half
\* in flight between two Ps is in neither ring, so the round can return nil
\* while work exists. Steal.cfg checks the conjunction; each mutant breaks
\* exactly one part.
=============================================================================
