----------------------------- MODULE ExecutorHelp -----------------------------
(***************************************************************************)
(* The help cap of Group.Wait (executor/group.go: helpWait, helpLoop,      *)
(* helpOwn, helpOnce, helpNestCap) and several Waits asleep on one group   *)
(* (finish, ready, resume), which Executor.tla leaves out: a Wait runs its *)
(* group's own children at any nesting, helps with other queued tasks only *)
(* while fewer than Cap Waits are nested on its M (w.nest < helpNestCap;   *)
(* 16 in Go, Cap here), and past that gives its P away (giveUpP) and       *)
(* sleeps on the group until its last task readies it; finish readies      *)
(* every Wait asleep on the group.                                         *)
(*                                                                         *)
(* One P, and the Ms (model values). Outside group G (NewGroup from        *)
(* outside: its child goes through the global queue, not a kids list) has  *)
(* one leaf, task 5. Tasks 1, 3 and 4 Wait on G, a group made elsewhere    *)
(* (a Wait inside a task helps there too); task 2 spawns leaf 6 into its   *)
(* own group GT (its P's queue and GT's kids list), Waits on GT, then on   *)
(* G. The global queue starts as 1, 2, 3, 4, 5: task 1's Wait (nest 0)     *)
(* helps with task 2 (nest 1), whose Wait on GT runs its own child 6 at    *)
(* nest 2, past the cap, and whose Wait on G, at the cap, sleeps; another  *)
(* M does the same with tasks 3 and 4, so two Waits sleep on G at once.    *)
(*                                                                         *)
(* The scheduler is abstracted: an M without a P takes the idle P when     *)
(* there is one (no parking, so no wakeup to lose: ExecutorFine.tla checks *)
(* those), and an M with the P and no task takes its P's queue's head,     *)
(* else the global queue's, else gives the P up. Each help step is one     *)
(* step: ExecutorGroup.tla checks the kids list and claim words at their   *)
(* grain.                                                                  *)
(*                                                                         *)
(* Program "own" (ExecutorHelpOwn.tla): task 2 comes first, so an M's loop *)
(* runs it at nest 0, under the cap; it spawns leaf 6 into GT, then leaf 7 *)
(* (Task.Go, no group) into its P's runnext, ahead of 6: its Wait on GT    *)
(* finds another group's task at the P queue's head and its own child 6    *)
(* behind it, and must run 6 first (helpOwn before helpOnce).              *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    Program,  \* "cap" or "own": the program (above)
    Cap,      \* helpNestCap
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants (the spec only):
\*   CapOffByOne     a Wait helps others while w.nest <= Cap: one Wait more
\*                   (the Go mutation NoHelpCap removes the check)
\*   CappedHoldsP    a Wait at the cap with none of its own to run sleeps
\*                   holding its P instead of giving it away
\*   ReadyOnlyFirst  finish readies only the Wait that registered last
\*   ReadyWithoutToken  finish wakes a Wait asleep without its P as if it
\*                   had kept one: no resume token, so it runs on with no P
\* and the Go mutation of the same name:
\*   HelpOthersFirst a Wait helps with whatever its P's queue gives (helpOnce)
\*                   before its own children (helpOwn)
Mutants == {"none", "CapOffByOne", "CappedHoldsP", "ReadyOnlyFirst",
            "ReadyWithoutToken", "HelpOthersFirst"}

ASSUME /\ IsFiniteSet(Ms) /\ Ms # {} /\ Cap \in Nat /\ Mutant \in Mutants
       /\ Program \in {"cap", "own"}

Tasks == IF Program = "own" THEN 1..7 ELSE 1..6
Groups == {"G", "GT"}
\* The group a task belongs to ("none": none), and each task's first step.
GroupOf(t) == CASE t = 5 -> "G" [] t = 6 -> "GT" [] OTHER -> "none"
First(t) == CASE t = 2 -> "spawn" [] t \in {1, 3, 4} -> "wG" [] OTHER -> "end"
\* The group a waiting step waits on, and where the task goes after.
WaitOn(pc) == IF pc = "wG" THEN "G" ELSE "GT"
After(pc) == IF pc = "wGT" THEN "wG" ELSE "end"

VARIABLES
    gq,       \* the global queue, head first: tasks and resume tokens (Ms)
    lq,       \* the P's queue, head first (its runnext is the head)
    pidle,    \* the P is idle
    hasP,     \* hasP[m]: m holds the P
    stack,    \* stack[m]: m's task and the tasks its Waits run inline, bottom
              \* first; a frame is [t, pc, st, own] (st: a Wait's "loop",
              \* "lock", "sleep" or "park"; own: run by helpOwn)
    n,        \* n[g]: g.n
    kids,     \* kids[g]: g's children spawned onto its kids list
    waiters,  \* waiters[g]: the Ms whose Waits sleep on g, last registered first
    nrun,     \* nrun[t]: times t started (capped at 2)
    done      \* tasks that returned

vars == <<gq, lq, pidle, hasP, stack, n, kids, waiters, nrun, done>>

Init ==
    /\ gq = IF Program = "own" THEN <<2, 1, 3, 4, 5>> ELSE <<1, 2, 3, 4, 5>>
    /\ lq = <<>> /\ pidle = TRUE
    /\ hasP = [m \in Ms |-> FALSE] /\ stack = [m \in Ms |-> <<>>]
    /\ n = [g \in Groups |-> IF g = "G" THEN 1 ELSE 0]
    /\ kids = [g \in Groups |-> {}] /\ waiters = [g \in Groups |-> <<>>]
    /\ nrun = [t \in Tasks |-> 0] /\ done = {}

Top(m) == stack[m][Len(stack[m])]
SetTop(m, f) == stack' = [stack EXCEPT ![m][Len(stack[m])] = f]
Push(m, t, own) ==
    stack' = [stack EXCEPT ![m] = Append(@, [t |-> t, pc |-> First(t), st |-> "loop", own |-> own])]
Start(t) == nrun' = [nrun EXCEPT ![t] = IF @ < 2 THEN @ + 1 ELSE 2]
\* The Waits nested below a Wait in m's top frame (w.nest).
Nest(m) == Len(stack[m]) - 1
IsTask(x) == x \in Tasks
Range(s) == {s[i] : i \in DOMAIN s}

(***************************************************************************)
(* The M loop: exitP's pidleget, then findRunnable's looks and execute.   *)
(***************************************************************************)
TakeP(m) ==
    /\ stack[m] = <<>> /\ ~hasP[m] /\ pidle
    /\ pidle' = FALSE /\ hasP' = [hasP EXCEPT ![m] = TRUE]
    /\ UNCHANGED <<gq, lq, stack, n, kids, waiters, nrun, done>>

\* Take the head of the P's queue, else of the global queue, and do what
\* execute does with it; with nothing, give the P up (releasep, pidleput).
\* A child some Wait ran inline already is dropped; a resume token hands
\* the P to its M (resume).
Take(m, x) ==
    IF IsTask(x)
      THEN IF nrun[x] = 0
             THEN Push(m, x, FALSE) /\ Start(x) /\ UNCHANGED <<pidle, hasP>>
             ELSE UNCHANGED <<stack, nrun, pidle, hasP>>
      ELSE /\ hasP' = [hasP EXCEPT ![m] = FALSE, ![x] = TRUE]
           /\ stack' = [stack EXCEPT ![x][Len(stack[x])].st = "loop"]
           /\ UNCHANGED <<pidle, nrun>>

Find(m) ==
    /\ stack[m] = <<>> /\ hasP[m]
    /\ IF lq # <<>>
         THEN Take(m, Head(lq)) /\ lq' = Tail(lq) /\ UNCHANGED gq
         ELSE IF gq # <<>>
         THEN Take(m, Head(gq)) /\ gq' = Tail(gq) /\ UNCHANGED lq
         ELSE /\ hasP' = [hasP EXCEPT ![m] = FALSE] /\ pidle' = TRUE
              /\ UNCHANGED <<gq, lq, stack, nrun>>
    /\ UNCHANGED <<n, kids, waiters, done>>

(***************************************************************************)
(* A task's steps, on its M's top frame.                                   *)
(***************************************************************************)
\* Task 2's Group.Go: the child into the P's runnext and onto GT's kids.
Spawn(m) ==
    /\ stack[m] # <<>> /\ Top(m).pc = "spawn"
    /\ lq' = <<6>> \o lq /\ n' = [n EXCEPT !["GT"] = @ + 1]
    /\ kids' = [kids EXCEPT !["GT"] = @ \cup {6}]
    /\ SetTop(m, [Top(m) EXCEPT !.pc = IF Program = "own" THEN "spawn7" ELSE "wGT"])
    /\ UNCHANGED <<gq, pidle, hasP, waiters, nrun, done>>

\* Program "own": task 2's Task.Go of leaf 7 (no group) into its P's
\* runnext, ahead of 6.
Spawn7(m) ==
    /\ stack[m] # <<>> /\ Top(m).pc = "spawn7"
    /\ lq' = <<7>> \o lq
    /\ SetTop(m, [Top(m) EXCEPT !.pc = "wGT"])
    /\ UNCHANGED <<gq, pidle, hasP, n, kids, waiters, nrun, done>>

\* m's task returns and finish readies the waiters ws: each one's token to
\* the finisher's P's runnext (ready), or to the global queue when the
\* finisher holds no P. A waiter that kept its P (CappedHoldsP) needs no
\* token: it just wakes.
PopReady(m, ws) ==
    LET Rng == Range(ws)
        toks == IF Mutant = "ReadyWithoutToken" THEN <<>>
                ELSE SelectSeq(ws, LAMBDA w : ~hasP[w])
    IN /\ stack' = [x \in Ms |->
                       IF x = m THEN SubSeq(stack[m], 1, Len(stack[m]) - 1)
                       ELSE IF x \in Rng
                         THEN [stack[x] EXCEPT ![Len(stack[x])].st =
                                 IF hasP[x] \/ Mutant = "ReadyWithoutToken"
                                   THEN "loop" ELSE "park"]
                       ELSE stack[x]]
       /\ IF hasP[m]
            THEN lq' = toks \o lq /\ UNCHANGED gq
            ELSE gq' = gq \o toks /\ UNCHANGED lq

\* The task returns: Group.finish (g.n--; the last one readies every
\* waiter, ReadyOnlyFirst the first only), then its frame goes.
End(m) ==
    /\ stack[m] # <<>> /\ Top(m).pc = "end"
    /\ LET t == Top(m).t
           g == GroupOf(t)
           last == g # "none" /\ n[g] = 1
           ws == IF ~last THEN <<>>
                 ELSE IF Mutant = "ReadyOnlyFirst" /\ waiters[g] # <<>>
                 THEN <<Head(waiters[g])>> ELSE waiters[g]
       IN /\ done' = done \cup {t}
          /\ n' = IF g = "none" THEN n ELSE [n EXCEPT ![g] = @ - 1]
          /\ waiters' = IF last THEN [waiters EXCEPT ![g] = <<>>] ELSE waiters
          /\ PopReady(m, ws)
    /\ UNCHANGED <<pidle, hasP, kids, nrun>>

(***************************************************************************)
(* helpWait's loop, one look per step: the group done: return; an own      *)
(* child not yet claimed (helpOwn): run it inline; under the cap, a queued *)
(* task (helpOnce: the P's queue, then the global queue; a claimed record  *)
(* is dropped, a token hands the P over): run it inline; else giveUpP and, *)
(* under g.mu, register and sleep, or, the group done meanwhile,           *)
(* reacquire (the idle P, else the token to the global queue and park).   *)
(***************************************************************************)
WaitLoop(m) ==
    /\ stack[m] # <<>> /\ Top(m).pc \in {"wG", "wGT"} /\ Top(m).st = "loop"
    /\ LET f == Top(m)
           g == WaitOn(f.pc)
           own == {c \in kids[g] : nrun[c] = 0}
           under == Nest(m) < Cap \/ (Mutant = "CapOffByOne" /\ Nest(m) <= Cap)
       IN IF n[g] = 0
            THEN SetTop(m, [f EXCEPT !.pc = After(f.pc)])
                 /\ UNCHANGED <<gq, lq, pidle, hasP, nrun>>
          ELSE IF hasP[m] /\ own # {}
                  /\ ~(Mutant = "HelpOthersFirst" /\ under /\ (lq # <<>> \/ gq # <<>>))
            THEN \E c \in own : Push(m, c, TRUE) /\ Start(c)
                                /\ UNCHANGED <<gq, lq, pidle, hasP>>
          ELSE IF hasP[m] /\ under /\ lq # <<>>
            THEN Take(m, Head(lq)) /\ lq' = Tail(lq) /\ UNCHANGED gq
          ELSE IF hasP[m] /\ under /\ gq # <<>>
            THEN Take(m, Head(gq)) /\ gq' = Tail(gq) /\ UNCHANGED lq
          ELSE /\ SetTop(m, [f EXCEPT !.st = "lock"])
               /\ IF hasP[m] /\ ~(Mutant = "CappedHoldsP" /\ ~under)
                    THEN hasP' = [hasP EXCEPT ![m] = FALSE] /\ pidle' = TRUE
                    ELSE UNCHANGED <<hasP, pidle>>
               /\ UNCHANGED <<gq, lq, nrun>>
    /\ UNCHANGED <<n, kids, waiters, done>>

WaitLock(m) ==
    /\ stack[m] # <<>> /\ Top(m).st = "lock"
    /\ LET f == Top(m)
           g == WaitOn(f.pc)
       IN IF n[g] # 0
            THEN /\ waiters' = [waiters EXCEPT ![g] = <<m>> \o @]
                 /\ SetTop(m, [f EXCEPT !.st = "sleep"])
                 /\ UNCHANGED <<gq, pidle, hasP>>
          ELSE IF hasP[m]
            THEN SetTop(m, [f EXCEPT !.st = "loop"]) /\ UNCHANGED <<gq, pidle, hasP, waiters>>
          ELSE IF pidle
            THEN /\ pidle' = FALSE /\ hasP' = [hasP EXCEPT ![m] = TRUE]
                 /\ SetTop(m, [f EXCEPT !.st = "loop"]) /\ UNCHANGED <<gq, waiters>>
          ELSE /\ gq' = Append(gq, m) /\ SetTop(m, [f EXCEPT !.st = "park"])
               /\ UNCHANGED <<pidle, hasP, waiters>>
    /\ UNCHANGED <<lq, n, kids, nrun, done>>

MStep(m) == TakeP(m) \/ Find(m) \/ Spawn(m) \/ Spawn7(m) \/ End(m) \/ WaitLoop(m)
            \/ WaitLock(m)

Next == \E m \in Ms : MStep(m)

Spec == Init /\ [][Next]_vars /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
TypeOK ==
    /\ pidle \in BOOLEAN /\ hasP \in [Ms -> BOOLEAN]
    /\ n \in [Groups -> 0..2] /\ kids \in [Groups -> SUBSET Tasks]
    /\ nrun \in [Tasks -> 0..2] /\ done \subseteq Tasks
    /\ \A m \in Ms : \A i \in DOMAIN stack[m] :
         stack[m][i].st \in {"loop", "lock", "sleep", "park"}

\* The P is idle or held by exactly one M.
POne == Cardinality({m \in Ms : hasP[m]}) + (IF pidle THEN 1 ELSE 0) = 1

\* Each task starts at most once, whether a Wait runs it inline or an M
\* dequeues it.
ExactlyOnce == \A t \in Tasks : nrun[t] <= 1

\* The cap: a task not its Wait's own child runs inline only under a Wait
\* with fewer than Cap Waits below it, so frame i (nest i - 1) is an own
\* child or i - 1 <= Cap. Own children nest past it (task 6 at nest 2).
NestCapped ==
    \A m \in Ms : \A i \in 2..Len(stack[m]) : stack[m][i].own \/ i - 1 <= Cap

\* TasksRunOnPs: a running frame holds the P. The top frame of an M's stack
\* runs (a task's body, or its Wait's help loop: st "loop") only on an M
\* that holds the P; a Wait without it is under g.mu, asleep, or parked for
\* its token. It mirrors park's contract (executor/group.go, helpLoop:
\* park returns with the P that resume or a retake gave it) and ready,
\* which queues a task waiter's resume token (sched.go).
TasksRunOnPs ==
    \A m \in Ms : stack[m] # <<>> /\ Top(m).st = "loop" => hasP[m]

\* OwnChildrenFirst: a Wait runs its own children first. A frame that is
\* not its Wait's own child (help with another queued task) sits above a
\* Wait none of whose own children is still unstarted: helpLoop calls
\* helpOwn before helpOnce (executor/group.go). A group's kids are spawned
\* only by the task that Waits on it, before its Wait, so none is added
\* while the Wait is suspended under the frame it runs.
OwnChildrenFirst ==
    \A m \in Ms : \A i \in 2..Len(stack[m]) :
        ~stack[m][i].own =>
            {c \in kids[WaitOn(stack[m][i - 1].pc)] : nrun[c] = 0} = {}

\* Every Wait returns, with the cap in force and two Waits asleep on G at
\* once: every task returns.
WaitReturns == <>(done = Tasks)
=============================================================================
