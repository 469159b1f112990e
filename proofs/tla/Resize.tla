---------------------------- MODULE Resize ----------------------------
(* SetProcs taking P 2 away (executor/resize.go), against Ms that take,  *)
(* run and release Ps, an outside submitter and Close. A task is in one  *)
(* place: outside (not yet submitted), the global queue g, a P's queue   *)
(* q[p], SetProcs's hand, or done. The resizer: RetireP (mark), wait     *)
(* until the P is out, take its queue (destroy's gets), put it on the    *)
(* global queue. Close judges quiescence as checkDead: no M holds a P,   *)
(* no queue it may look at holds a task (work() skips a dying P's), and  *)
(* no submit or SetProcs is in flight. pending counts the wakeups owed  *)
(* (wakep), at most one per P: an idle P is taken in service only for   *)
(* one, as an M parked on the idle list runs only once woken. A submit  *)
(* and SetProcs's put of a removed P's tasks each owe one. AllRun asks, *)
(* under fairness, that every task runs: a removed P's work is never    *)
(* left on the global queue with every M parked.                        *)
EXTENDS Naturals, FiniteSets

CONSTANTS NT, Mutant   \* Mutant: "none", "ResizeNotInflight", "ResizeDropsRunnext", "ResizeNoWake"

Ps == {1, 2}
Tasks == 1..NT
VARIABLES out, g, q, held, dying, retiring, gone, hand, done, rpc, closed, pending

vars == <<out, g, q, held, dying, retiring, gone, hand, done, rpc, closed, pending>>

\* One more wakeup owed; a wakep with every P owed one already wakes no one.
Owe == IF pending < Cardinality(Ps) THEN pending + 1 ELSE pending

Init == /\ out = Tasks /\ g = {} /\ q = [p \in Ps |-> {}]
        /\ held = [p \in Ps |-> FALSE] /\ dying = [p \in Ps |-> FALSE]
        /\ retiring = [p \in Ps |-> FALSE] /\ gone = [p \in Ps |-> FALSE]
        /\ hand = {} /\ done = {} /\ rpc = "mark" /\ closed = FALSE /\ pending = 0

\* An outside submit: to the global queue (in flight for one step), and
\* its wakep.
Submit(t) == /\ ~closed /\ t \in out /\ out' = out \ {t} /\ g' = g \cup {t} /\ pending' = Owe
             /\ UNCHANGED <<q, held, dying, retiring, gone, hand, done, rpc, closed>>

\* A woken M takes an idle P in service (startm: pidleget, takeP).
Acquire(p) == /\ pending > 0 /\ ~held[p] /\ ~gone[p] /\ ~retiring[p] /\ held' = [held EXCEPT ![p] = TRUE]
              /\ pending' = pending - 1
              /\ UNCHANGED <<out, g, q, dying, retiring, gone, hand, done, rpc, closed>>

\* The holder moves a global task to its queue (a global batch).
Batch(p, t) == /\ held[p] /\ ~dying[p] /\ t \in g /\ g' = g \ {t} /\ q' = [q EXCEPT ![p] = @ \cup {t}]
               /\ UNCHANGED <<out, held, dying, retiring, gone, hand, done, rpc, closed, pending>>

\* The holder runs a task of its queue; it looks at dying first.
Run(p, t) == /\ held[p] /\ ~dying[p] /\ t \in q[p] /\ q' = [q EXCEPT ![p] = @ \ {t}] /\ done' = done \cup {t}
             /\ UNCHANGED <<out, g, held, dying, retiring, gone, hand, rpc, closed, pending>>

\* Nothing to run, the global queue included (the drop-and-recheck):
\* release (ReleaseP); a retiring P leaves service instead.
Release(p) == /\ held[p] /\ q[p] = {} /\ g = {} /\ held' = [held EXCEPT ![p] = FALSE]
              /\ IF retiring[p] THEN gone' = [gone EXCEPT ![p] = TRUE] /\ retiring' = [retiring EXCEPT ![p] = FALSE]
                                ELSE UNCHANGED <<gone, retiring>>
              /\ UNCHANGED <<out, g, q, dying, hand, done, rpc, closed, pending>>

\* The holder sees dying and lets the P go, whatever its queue (M.DropP),
\* then takes an idle P in service if there is one, else parks (leaveDying's
\* exitP: pidleget, stopm).
Free(p) == {o \in Ps : o # p /\ ~held[o] /\ ~gone[o] /\ ~retiring[o]}
LeaveDying(p) == /\ held[p] /\ dying[p]
                 /\ held' = IF Free(p) = {} THEN [held EXCEPT ![p] = FALSE]
                            ELSE [held EXCEPT ![p] = FALSE, ![CHOOSE o \in Free(p) : TRUE] = TRUE]
                 /\ gone' = [gone EXCEPT ![p] = TRUE] /\ retiring' = [retiring EXCEPT ![p] = FALSE]
                 /\ UNCHANGED <<out, g, q, dying, hand, done, rpc, closed, pending>>

\* SetProcs(1): RetireP(2), then dying.
Mark == /\ rpc = "mark" /\ ~closed
        /\ IF held[2] THEN retiring' = [retiring EXCEPT ![2] = TRUE] /\ dying' = [dying EXCEPT ![2] = TRUE] /\ UNCHANGED gone
                      ELSE gone' = [gone EXCEPT ![2] = TRUE] /\ UNCHANGED <<retiring, dying>>
        /\ rpc' = "wait" /\ UNCHANGED <<out, g, q, held, hand, done, closed, pending>>
Wait == /\ rpc = "wait" /\ gone[2] /\ rpc' = "take"
        /\ UNCHANGED <<out, g, q, held, dying, retiring, gone, hand, done, closed, pending>>
\* destroy's gets: the queue into SetProcs's hand (the mutant drops one task).
Take == /\ rpc = "take" /\ q' = [q EXCEPT ![2] = {}]
        /\ hand' = IF Mutant = "ResizeDropsRunnext" /\ q[2] # {} THEN q[2] \ {CHOOSE t \in q[2] : TRUE} ELSE q[2]
        /\ rpc' = "put" /\ UNCHANGED <<out, g, held, dying, retiring, gone, done, closed, pending>>
\* destroy's PutBatch and its wakep if it moved tasks (the mutant wakes
\* nobody); SetProcs leaves.
Put == /\ rpc = "put" /\ g' = g \cup hand /\ hand' = {} /\ dying' = [dying EXCEPT ![2] = FALSE]
       /\ pending' = IF hand # {} /\ Mutant # "ResizeNoWake" THEN Owe ELSE pending
       /\ rpc' = "done" /\ UNCHANGED <<out, q, held, retiring, gone, done, closed>>

Inflight == rpc \in {"wait", "take", "put"} /\ Mutant # "ResizeNotInflight"
\* Close's quiescence: every M parked, nothing it may look at queued.
Close == /\ ~closed /\ out = {} /\ ~Inflight /\ \A p \in Ps : ~held[p]
         /\ g = {} /\ \A p \in Ps : dying[p] \/ q[p] = {}
         /\ closed' = TRUE /\ UNCHANGED <<out, g, q, held, dying, retiring, gone, hand, done, rpc, pending>>

Next == \/ \E t \in Tasks : Submit(t)
        \/ \E p \in Ps : Acquire(p) \/ Release(p) \/ LeaveDying(p)
        \/ \E p \in Ps, t \in Tasks : Batch(p, t) \/ Run(p, t)
        \/ Mark \/ Wait \/ Take \/ Put \/ Close

Spec == Init /\ [][Next]_vars

\* Every step that can go on eventually does: the submitter, each M and
\* the resizer (Close is left out: it ends nothing AllRun needs).
Fairness == /\ \A t \in Tasks : WF_vars(Submit(t))
            /\ \A p \in Ps : WF_vars(Acquire(p)) /\ WF_vars(Release(p)) /\ WF_vars(LeaveDying(p))
            /\ \A p \in Ps, t \in Tasks : WF_vars(Batch(p, t)) /\ WF_vars(Run(p, t))
            /\ WF_vars(Mark) /\ WF_vars(Wait) /\ WF_vars(Take) /\ WF_vars(Put)
FairSpec == Spec /\ Fairness

TypeOK == /\ out \subseteq Tasks /\ g \subseteq Tasks /\ hand \subseteq Tasks /\ done \subseteq Tasks
          /\ rpc \in {"mark", "wait", "take", "put", "done"} /\ closed \in BOOLEAN /\ pending \in 0..Cardinality(Ps)

\* Every task is in exactly one place (no loss, no duplicate).
Places == <<out, g, q[1], q[2], hand, done>>
NoTaskLostOrDuplicated ==
    /\ out \cup g \cup q[1] \cup q[2] \cup hand \cup done = Tasks
    /\ \A i, j \in 1..6 : i < j => Places[i] \cap Places[j] = {}
\* A P out of service is held by nobody, and once SetProcs has taken its
\* queue nothing is put there again.
NoWorkOnRemovedP == \A p \in Ps : gone[p] => ~held[p] /\ (rpc \in {"put", "done"} => q[p] = {})
\* Close returns only once every task has run.
CloseOnlyWhenAllRan == closed => done = Tasks
\* Liveness: every task runs, those of the P taken away included.
AllRun == <>(done = Tasks)
=============================================================================
