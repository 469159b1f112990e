---------------------------- MODULE ExecutorGroup ----------------------------
(***************************************************************************)
(* A group's internals, which Executor.tla abstracts to a counter: the     *)
(* kids list, each child record's claim word and its two references (the   *)
(* queue's and the kids list's), and record recycling (executor/group.go:  *)
(* addKid, helpOwn, dropKids; task.go: take, release). Several waiters on  *)
(* one group.                                                              *)
(*                                                                         *)
(* The parent task spawns K children into its P's queue Q (a sequence; a   *)
(* child's record is its number) and onto the group's kids list, then      *)
(* waits (waiter w1, holding the P: it looks at Q's head, then the kids    *)
(* list). A second waiter w2 (another task's Wait, on another P, whose own *)
(* queue has no child) helps from the kids list only. A thief dequeues     *)
(* from Q and runs what it claims. Every atomic access is a step: Q's Get, *)
(* the claim word's load and CAS, the kids list's push and swap, the       *)
(* reference count's decrement. A record recycled (refs reached 0) goes to *)
(* a free list and is not reused here: the invariant catches an early      *)
(* recycle before a reuse could do harm.                                   *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    K,        \* the children
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   TakeIgnoresClaim   an M that dequeues a child runs it without taking
\*                      its claim word (the Go mutation)
\*   RecycleEarly       every release recycles the record, not only the
\*                      last of its two holders' (the Go mutation)
\*   DropKidsKeepsMine  dropKids lets go of the list it swapped off
\*                      g.kids but not of the rest of its own (mine): those
\*                      records are never recycled (the spec only)
Mutants == {"none", "TakeIgnoresClaim", "RecycleEarly", "DropKidsKeepsMine"}

ASSUME K \in Nat /\ K >= 1 /\ Mutant \in Mutants

Kids == 1..K
W1 == "w1"        \* the parent's Wait, holding the P whose queue is Q
W2 == "w2"        \* another Wait on the same group
Thief == "thief"
Waiters == {W1, W2}

VARIABLES
    q,        \* the parent's P's queue, head first
    kids,     \* g.kids, a stack (head first)
    mine,     \* mine[w]: the kids list w swapped off g.kids, head first
    claim,    \* claim[r]: the claim word
    refs,     \* refs[r]: the references left
    free,     \* free[r]: times r was recycled
    nrun,     \* nrun[r]: times child r started (capped at 2)
    n,        \* g.n: children not finished
    spawned,  \* children spawned so far
    pc,       \* pc[a]: where agent a is
    cur       \* cur[a]: the record agent a holds, 0 for none

vars == <<q, kids, mine, claim, refs, free, nrun, n, spawned, pc, cur>>

Range(s) == {s[i] : i \in DOMAIN s}

Init ==
    /\ q = <<>> /\ kids = <<>> /\ mine = [w \in Waiters |-> <<>>]
    /\ claim = [r \in Kids |-> 0] /\ refs = [r \in Kids |-> 0]
    /\ free = [r \in Kids |-> 0] /\ nrun = [r \in Kids |-> 0]
    /\ n = 0 /\ spawned = 0
    /\ pc = [a \in {W1, W2, Thief} |-> IF a = W1 THEN "spawn" ELSE "idle"]
    /\ cur = [a \in {W1, W2, Thief} |-> 0]

Goto(a, l) == pc' = [pc EXCEPT ![a] = l]

\* release: one reference less; the last one recycles the record
\* (RecycleEarly: every one does).
Release(r) ==
    /\ refs' = [refs EXCEPT ![r] = @ - 1]
    /\ free' = IF refs[r] = 1 \/ Mutant = "RecycleEarly"
                 THEN [free EXCEPT ![r] = IF @ < 2 THEN @ + 1 ELSE 2] ELSE free

Started(r) == nrun' = [nrun EXCEPT ![r] = IF @ < 2 THEN @ + 1 ELSE 2]

\* Group.Go in the parent: g.n++, addKid (refs = 2, push onto g.kids),
\* then the queue put; one step each but the counter's.
Spawn ==
    /\ pc[W1] = "spawn" /\ spawned < K
    /\ LET r == spawned + 1 IN
       /\ n' = n + 1 /\ spawned' = r
       /\ refs' = [refs EXCEPT ![r] = 2] /\ kids' = <<r>> \o kids
    /\ Goto(W1, "put")
    /\ UNCHANGED <<q, mine, claim, free, nrun, cur>>

SpawnPut ==
    /\ pc[W1] = "put"
    /\ q' = Append(q, spawned)
    /\ Goto(W1, IF spawned = K THEN "loop" ELSE "spawn")
    /\ UNCHANGED <<kids, mine, claim, refs, free, nrun, n, spawned, cur>>

(***************************************************************************)
(* Group.Wait's loop (helpWait) for waiter w: while g.n > 0, helpOwn: w1   *)
(* first takes Q's head (a record already claimed is released and skipped; *)
(* one it fails to claim is put back, at the tail; one it claims runs      *)
(* inline), then both take from the kids list (swapped off g.kids into     *)
(* mine when mine is empty): claim each, release it if that fails, run it  *)
(* if it succeeds. With nothing to claim the waiter sleeps until g.n = 0   *)
(* (finish readies every waiter). Then dropKids lets go of what mine and   *)
(* g.kids still hold.                                                      *)
(***************************************************************************)
WaitStart ==
    /\ pc[W2] = "idle" /\ spawned > 0
    /\ Goto(W2, "loop")
    /\ UNCHANGED <<q, kids, mine, claim, refs, free, nrun, n, spawned, cur>>

Loop(w) ==
    /\ pc[w] = "loop"
    /\ Goto(w, IF n = 0 THEN "drop"
               ELSE IF mine[w] = <<>> /\ kids = <<>> THEN "block"
               ELSE IF w = W1 THEN "qget" ELSE "list")
    /\ UNCHANGED <<q, kids, mine, claim, refs, free, nrun, n, spawned, cur>>

QGet(w) ==
    /\ pc[w] = "qget"
    /\ IF q = <<>>
         THEN Goto(w, "list") /\ UNCHANGED <<q, cur>>
         ELSE /\ q' = Tail(q) /\ cur' = [cur EXCEPT ![w] = Head(q)]
              /\ Goto(w, "qload")
    /\ UNCHANGED <<kids, mine, claim, refs, free, nrun, n, spawned>>

\* t.shared && t.claim.Load() != 0: run inline by a Wait already.
QLoad(w) ==
    /\ pc[w] = "qload"
    /\ LET r == cur[w] IN
       IF claim[r] # 0
         THEN /\ Release(r) /\ cur' = [cur EXCEPT ![w] = 0] /\ Goto(w, "qget")
         ELSE Goto(w, "qcas") /\ UNCHANGED <<refs, free, cur>>
    /\ UNCHANGED <<q, kids, mine, claim, nrun, n, spawned>>

QCAS(w) ==
    /\ pc[w] = "qcas"
    /\ LET r == cur[w] IN
       IF claim[r] = 0
         THEN /\ claim' = [claim EXCEPT ![r] = 1] /\ Started(r)
              /\ Goto(w, "exec") /\ UNCHANGED <<q, cur>>
         ELSE /\ q' = Append(q, r) /\ cur' = [cur EXCEPT ![w] = 0]
              /\ Goto(w, "list") /\ UNCHANGED <<claim, nrun>>
    /\ UNCHANGED <<kids, mine, refs, free, n, spawned>>

\* The kids list: swap g.kids off when mine is empty, then claim its head.
List(w) ==
    /\ pc[w] = "list"
    /\ IF mine[w] = <<>>
         THEN /\ mine' = [mine EXCEPT ![w] = kids] /\ kids' = <<>>
              /\ Goto(w, IF kids = <<>> THEN "block" ELSE "list")
              /\ UNCHANGED <<claim, refs, free, nrun, cur>>
         ELSE LET r == Head(mine[w]) IN
              /\ mine' = [mine EXCEPT ![w] = Tail(@)] /\ UNCHANGED kids
              /\ IF claim[r] = 0
                   THEN /\ claim' = [claim EXCEPT ![r] = 1] /\ Started(r)
                        /\ cur' = [cur EXCEPT ![w] = r] /\ Goto(w, "exec")
                        /\ UNCHANGED <<refs, free>>
                   ELSE /\ Release(r) /\ Goto(w, "list")
                        /\ UNCHANGED <<claim, nrun, cur>>
    /\ UNCHANGED <<q, n, spawned>>

\* Run the claimed child inline: execute releases the record once its
\* fields are read, then the child runs and finishes (g.n--).
Exec(w) ==
    /\ pc[w] = "exec"
    /\ Release(cur[w]) /\ n' = n - 1
    /\ cur' = [cur EXCEPT ![w] = 0] /\ Goto(w, "loop")
    /\ UNCHANGED <<q, kids, mine, claim, nrun, spawned>>

\* Nothing to claim here: the children run elsewhere; finish wakes us.
Block(w) ==
    /\ pc[w] = "block" /\ n = 0
    /\ Goto(w, "drop")
    /\ UNCHANGED <<q, kids, mine, claim, refs, free, nrun, n, spawned, cur>>

\* dropKids: swap g.kids off, then release mine and that rest, one by one.
Drop(w) ==
    /\ pc[w] = "drop"
    /\ mine' = [mine EXCEPT ![w] = IF Mutant = "DropKidsKeepsMine" THEN kids ELSE @ \o kids]
    /\ kids' = <<>>
    /\ Goto(w, "dropr")
    /\ UNCHANGED <<q, claim, refs, free, nrun, n, spawned, cur>>

DropRelease(w) ==
    /\ pc[w] = "dropr"
    /\ IF mine[w] = <<>>
         THEN Goto(w, "done") /\ UNCHANGED <<mine, refs, free>>
         ELSE /\ Release(Head(mine[w])) /\ mine' = [mine EXCEPT ![w] = Tail(@)]
              /\ UNCHANGED pc
    /\ UNCHANGED <<q, kids, claim, nrun, n, spawned, cur>>

(***************************************************************************)
(* The thief (findRunnable's steal, or any M that dequeues the record):    *)
(* take (the claim's CAS; TakeIgnoresClaim: none), then release; a claimed *)
(* record is run and finishes, a skipped one is only released.             *)
(***************************************************************************)
TGet ==
    /\ pc[Thief] = "idle" /\ q # <<>>
    /\ q' = Tail(q) /\ cur' = [cur EXCEPT ![Thief] = Head(q)]
    /\ Goto(Thief, "take")
    /\ UNCHANGED <<kids, mine, claim, refs, free, nrun, n, spawned>>

TTake ==
    /\ pc[Thief] = "take"
    /\ LET r == cur[Thief] IN
       IF claim[r] = 0 \/ Mutant = "TakeIgnoresClaim"
         THEN /\ claim' = [claim EXCEPT ![r] = 1] /\ Started(r)
              /\ Goto(Thief, "texec") /\ UNCHANGED <<refs, free, cur>>
         ELSE /\ Release(r) /\ cur' = [cur EXCEPT ![Thief] = 0]
              /\ Goto(Thief, "idle") /\ UNCHANGED <<claim, nrun>>
    /\ UNCHANGED <<q, kids, mine, n, spawned>>

TExec ==
    /\ pc[Thief] = "texec"
    /\ Release(cur[Thief]) /\ n' = n - 1
    /\ cur' = [cur EXCEPT ![Thief] = 0] /\ Goto(Thief, "idle")
    /\ UNCHANGED <<q, kids, mine, claim, nrun, spawned>>

WStep(w) == Loop(w) \/ QGet(w) \/ QLoad(w) \/ QCAS(w) \/ List(w) \/ Exec(w)
            \/ Block(w) \/ Drop(w) \/ DropRelease(w)

Next ==
    \/ Spawn \/ SpawnPut \/ WaitStart \/ TGet \/ TTake \/ TExec
    \/ \E w \in Waiters : WStep(w)

Spec == Init /\ [][Next]_vars

---------------------------------------------------------------------------
TypeOK ==
    /\ q \in Seq(Kids) /\ kids \in Seq(Kids) /\ mine \in [Waiters -> Seq(Kids)]
    /\ claim \in [Kids -> {0, 1}] /\ refs \in [Kids -> -2..2]
    /\ free \in [Kids -> 0..2] /\ nrun \in [Kids -> 0..2]
    /\ n \in -K..K /\ spawned \in 0..K    \* below 0: a child ran twice

\* A child runs exactly once, whether inline or dequeued: at most once
\* always, and every child has run when the parent's Wait returns (its
\* dropKids). w2 may see g.n = 0 between two of the parent's Go calls and
\* return then, as a Wait may.
ChildOnce ==
    /\ \A r \in Kids : nrun[r] <= 1
    /\ pc[W1] \in {"drop", "dropr", "done"} => \A r \in Kids : nrun[r] = 1

Held(r) == r \in Range(q) \/ r \in Range(kids) \/ \E w \in Waiters : r \in Range(mine[w])

\* A record is recycled only when no queue and no kids list holds it, and
\* only once.
RecycleOnlyUnheld == \A r \in Kids : free[r] <= 1 /\ (free[r] = 1 => ~Held(r))

\* Nothing leaks: once both Waits have returned and the queue is drained,
\* every child's record has been recycled (once: RecycleOnlyUnheld's).
NoLeak ==
    (\A w \in Waiters : pc[w] = "done") /\ q = <<>> /\ pc[Thief] = "idle" =>
        \A r \in Kids : free[r] >= 1
=============================================================================
