------------------------------ MODULE TaskGen ------------------------------
(***************************************************************************)
(* Issue 25: the task's generation in the P's status word, in place of    *)
(* the worker's w.cur stores on every task.                                *)
(*                                                                         *)
(* Before (executor/sched.go execute, run, claim; task.go current, spawn) a*)
(* task's start stores w.cur := gen and the status word := own(id, pTask); *)
(* its end stores w.cur := prev and CASes own(id, pTask) -> own(id,       *)
(* pSched). A Task{w, gen} is current while w.cur = gen.                   *)
(*                                                                         *)
(* Now: the status word is 64 bits, gen<<27 | id<<3 | state (proc.go). The *)
(* start is ONE store, own(id, gen, pTask); the end is ONE CAS,            *)
(* own(id, gen, pTask) -> own(id, pSched). A spawn's CAS is                *)
(* own(id, gen, pTask) -> own(id, gen, pSpawn), so the CAS that locks the  *)
(* queue is also the staleness check. w.cur is written only when a task    *)
(* runs WITHOUT its P: by the task itself before it gives the P up         *)
(* (giveUpP: Blocking, Yield, a Wait that parks), by a retaker after its   *)
(* CAS took the P (sysmon's retake: it read gen in the word), and cleared  *)
(* when the task's worker takes a P back (reacquire, a Wait's takeP) or    *)
(* the task ends without one (claim's slow path, after lent is zero: it   *)
(* then names the outer task, if any). The task itself writes w.cur only  *)
(* while no retaker can act (its word is not pTask, or lent is zero), so   *)
(* a retaker's w.cur is never overwritten. A Task{w, g} is                 *)
(* current iff the word is own(w.id, g, pTask|pSpawn|pSyscall) or          *)
(* w.cur = g; a Task whose spawn CAS failed reads lent, then w.cur: with   *)
(* lent zero and w.cur # g it is stale (the retaker raises lent before its *)
(* CAS and lowers it after publishing w.cur).                              *)
(*                                                                         *)
(* The model: one P, the worker W whose tasks have generations 1..MaxGen, *)
(* nested up to Depth (a group Wait that runs tasks inline), another M X  *)
(* that takes the P when it is idle and gives it back, sysmon S that      *)
(* retakes the P from a task (retake: lent++, CAS, publish w.cur, lent--), *)
(* and H, any other goroutine holding a copy of a Task of W whose func    *)
(* has returned, calling Go with it (misuse that must panic).             *)
(*                                                                         *)
(* Safety:                                                                 *)
(*   StaleNeverAccepted  H's stale Task never passes the check (its spawn  *)
(*                       CAS never succeeds, and w.cur never names it)     *)
(*   NoFalseStale        W's running task is never judged stale           *)
(*   OnlyHolderTouchesQueue  the queue is used by at most one M, holding  *)
(*                       the P                                             *)
(*   CurNamesRunning     w.cur is 0 or the generation of a running task    *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS
    MaxGen,  \* W runs tasks 1..MaxGen
    Depth,   \* nesting of tasks run by a Wait
    Mutant   \* "none" is the protocol; any other name breaks one step

\* The broken variants:
\*   StaleGenAccepted  the spawn's CAS compares holder and state only (the
\*                     word without its generation): a stale Task of W's
\*                     previous task locks the queue of W's next task
\*   RetakeNoCur       the retaker does not publish w.cur: a task that lost
\*                     its P to sysmon is judged stale by its own Go
\*   CurAfterLent      the retaker lowers lent before it publishes w.cur
\*   EndNoLentWait     a task's end without its P writes w.cur without
\*                     waiting for lent: the retaker's late w.cur names the
\*                     ended task, and its stale Task is accepted
\*   ReacquireKeepsCur  a task given a P back (reacquire, a Wait's takeP)
\*                     leaves w.cur naming it: once it ends by the fast
\*                     CAS, w.cur still names it

None == 0
W == "W"
X == "X"
Nobody == "-"

VARIABLES
    st,      \* the status word: [h |-> holder, g |-> gen, s |-> state]
    wp,      \* W holds the P (w.p # nil)
    stack,   \* W's running tasks, innermost last
    mode,    \* W's pc
    nextGen, \* the next task's generation
    cur,     \* w.cur
    lent,    \* w.lent: retakers using W's M
    l,       \* W's read of lent in a failed check
    spc,     \* sysmon's pc
    saved,   \* the word sysmon read
    xpc,     \* X's pc
    ended,   \* generations whose func has returned
    stale,   \* ghost: a stale Task passed the check
    falseStale \* ghost: W's running task was judged stale

vars == <<st, wp, stack, mode, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

Word(h, g, s) == [h |-> h, g |-> g, s |-> s]
Idle == Word(Nobody, None, "idle")
Top == IF stack = <<>> THEN None ELSE stack[Len(stack)]
Outer == IF Len(stack) < 2 THEN None ELSE stack[Len(stack) - 1]
Pop(s) == SubSeq(s, 1, Len(s) - 1)

\* The spawn CAS's expected word matches the word.
SpawnMatch(g) ==
    IF Mutant = "StaleGenAccepted"
    THEN st.h = W /\ st.s = "task"
    ELSE st = Word(W, g, "task")

Init ==
    /\ st = Word(W, None, "sched")
    /\ wp = TRUE
    /\ stack = <<>>
    /\ mode = "sched"
    /\ nextGen = 1
    /\ cur = None
    /\ lent = 0
    /\ l = 0
    /\ spc = "idle"
    /\ saved = Idle
    /\ xpc = "idle"
    /\ ended = {}
    /\ stale = FALSE
    /\ falseStale = FALSE

(* W *)

\* execute: one store of own(id, gen, pTask).
Start ==
    /\ mode = "sched" /\ wp /\ st.h = W /\ st.s = "sched"
    /\ Len(stack) < Depth /\ nextGen <= MaxGen
    /\ st' = Word(W, nextGen, "task")
    /\ stack' = Append(stack, nextGen)
    /\ nextGen' = nextGen + 1
    /\ mode' = "task"
    /\ UNCHANGED <<wp, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* Task.Go by W's running task: the spawn's CAS to pSpawn.
SpawnCAS ==
    /\ mode = "task"
    /\ IF wp /\ SpawnMatch(Top)
       THEN /\ st' = Word(W, Top, "spawn") /\ mode' = "spawning"
       ELSE /\ mode' = "chklent" /\ UNCHANGED st
    /\ UNCHANGED <<wp, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* The queue is used; the word goes back.
SpawnEnd ==
    /\ mode = "spawning"
    /\ st' = Word(W, Top, "task")
    /\ mode' = "task"
    /\ UNCHANGED <<wp, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* A failed spawn CAS: read lent, then w.cur.
ChkLent ==
    /\ mode = "chklent"
    /\ l' = lent
    /\ mode' = "chkcur"
    /\ UNCHANGED <<st, wp, stack, nextGen, cur, lent, spc, saved, xpc, ended, stale, falseStale>>

ChkCur ==
    /\ mode = "chkcur"
    /\ IF cur = Top \/ l # 0
       THEN /\ mode' = "task" /\ UNCHANGED falseStale \* global spawn, or retry
       ELSE /\ falseStale' = TRUE /\ mode' = "task"
    /\ UNCHANGED <<st, wp, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale>>

\* run's end: one CAS own(id, gen, pTask) -> own(id, gen, pSched); if it
\* fails the P was retaken: wait for lent, then drop the P and leave w.cur
\* naming the outer task (which now runs without a P) or none.
End ==
    /\ mode = "task"
    /\ IF wp /\ st = Word(W, Top, "task")
       THEN /\ st' = Word(W, Top, "sched")
            /\ stack' = Pop(stack) /\ ended' = ended \cup {Top}
            /\ mode' = "sched"
            /\ UNCHANGED <<wp, cur>>
       ELSE /\ mode' = "endslow"
            /\ UNCHANGED <<st, stack, ended, wp, cur>>
    /\ UNCHANGED <<nextGen, lent, l, spc, saved, xpc, stale, falseStale>>

EndSlow ==
    /\ mode = "endslow"
    /\ lent = 0 \/ Mutant = "EndNoLentWait"
    /\ wp' = FALSE
    /\ cur' = Outer
    /\ stack' = Pop(stack) /\ ended' = ended \cup {Top}
    /\ mode' = "sched"
    /\ UNCHANGED <<st, nextGen, lent, l, spc, saved, xpc, stale, falseStale>>

\* Blocking / Yield / a Wait that gives the P up (giveUpP): publish w.cur,
\* then CAS the word to idle; if the CAS fails (retaken), wait for lent.
GiveUp1 ==
    /\ mode = "task" /\ wp
    /\ cur' = Top
    /\ mode' = "giveup"
    /\ UNCHANGED <<st, wp, stack, nextGen, lent, l, spc, saved, xpc, ended, stale, falseStale>>

GiveUp2 ==
    /\ mode = "giveup"
    /\ IF st = Word(W, Top, "task")
       THEN st' = Idle
       ELSE /\ lent = 0 /\ UNCHANGED st
    /\ wp' = FALSE
    /\ mode' = "sched"
    /\ UNCHANGED <<stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* A group Wait that runs tasks inline: CAS to pSched (the task goes on as
\* scheduler code; its Task is not current meanwhile, w.cur is none).
WaitEnter ==
    /\ mode = "task" /\ wp /\ st = Word(W, Top, "task")
    /\ st' = Word(W, Top, "sched")
    /\ mode' = "sched"
    /\ UNCHANGED <<wp, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* takeP / reacquire: an idle P. W has no P, so no retaker writes w.cur
\* now: W clears it (its task runs no user code until the Wait returns).
Reacquire ==
    /\ mode = "sched" /\ ~wp /\ st = Idle
    /\ st' = Word(W, None, "sched")
    /\ wp' = TRUE
    /\ cur' = IF Mutant = "ReacquireKeepsCur" THEN cur ELSE None
    /\ UNCHANGED <<mode, stack, nextGen, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* A Wait's return: the task goes on with the P, in its pTask word.
WaitReturn ==
    /\ mode = "sched" /\ wp /\ st.h = W /\ st.s = "sched" /\ stack # <<>>
    /\ st' = Word(W, Top, "task")
    /\ mode' = "task"
    /\ UNCHANGED <<wp, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

\* The top-level M loop gives its P away (idle, or handoff) between tasks.
Release ==
    /\ mode = "sched" /\ wp /\ stack = <<>> /\ st.h = W /\ st.s = "sched"
    /\ st' = Idle /\ wp' = FALSE
    /\ UNCHANGED <<mode, stack, nextGen, cur, lent, l, spc, saved, xpc, ended, stale, falseStale>>

(* sysmon: retake (sched.go retake) *)

SRead ==
    /\ spc = "idle" /\ st.h = W /\ st.s = "task"
    /\ saved' = st /\ spc' = "inc"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, cur, lent, l, xpc, ended, stale, falseStale>>

SInc ==
    /\ spc = "inc" /\ lent' = lent + 1 /\ spc' = "cas"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, cur, l, saved, xpc, ended, stale, falseStale>>

SCas ==
    /\ spc = "cas"
    /\ IF st = saved
       THEN /\ st' = Idle
            /\ spc' = IF Mutant = "RetakeNoCur" THEN "dec"
                      ELSE IF Mutant = "CurAfterLent" THEN "dec1" ELSE "pub"
            /\ UNCHANGED lent
       ELSE /\ spc' = "idle" /\ lent' = lent - 1 /\ UNCHANGED st
    /\ UNCHANGED <<wp, stack, mode, nextGen, cur, l, saved, xpc, ended, stale, falseStale>>

SPub ==
    /\ spc = "pub" /\ cur' = saved.g /\ spc' = "dec"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, lent, l, saved, xpc, ended, stale, falseStale>>

SDec ==
    /\ spc = "dec" /\ lent' = lent - 1 /\ spc' = "idle"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, cur, l, saved, xpc, ended, stale, falseStale>>

\* CurAfterLent: lent lowered first, w.cur published after.
SDec1 ==
    /\ spc = "dec1" /\ lent' = lent - 1 /\ spc' = "pub1"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, cur, l, saved, xpc, ended, stale, falseStale>>

SPub1 ==
    /\ spc = "pub1" /\ cur' = saved.g /\ spc' = "idle"
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, lent, l, saved, xpc, ended, stale, falseStale>>

(* X: another M that takes the idle P, uses its queue, and gives it back *)

XTake ==
    /\ xpc = "idle" /\ st = Idle
    /\ st' = Word(X, None, "sched") /\ xpc' = "holds"
    /\ UNCHANGED <<wp, stack, mode, nextGen, cur, lent, l, spc, saved, ended, stale, falseStale>>

XGive ==
    /\ xpc = "holds"
    /\ st' = Idle /\ xpc' = "idle"
    /\ UNCHANGED <<wp, stack, mode, nextGen, cur, lent, l, spc, saved, ended, stale, falseStale>>

(* H: a stale Task of W (its func returned) calls Go: the spawn CAS, then *)
(* the slow check (lent, then w.cur); either passing is the violation.    *)

HUse ==
    /\ \E g \in ended :
        \/ wp /\ SpawnMatch(g)
        \/ cur = g
    /\ stale' = TRUE
    /\ UNCHANGED <<st, wp, stack, mode, nextGen, cur, lent, l, spc, saved, xpc, ended, falseStale>>

Next ==
    \/ Start \/ SpawnCAS \/ SpawnEnd \/ ChkLent \/ ChkCur \/ End \/ EndSlow
    \/ GiveUp1 \/ GiveUp2 \/ WaitEnter \/ Reacquire \/ WaitReturn \/ Release
    \/ SRead \/ SInc \/ SCas \/ SPub \/ SDec \/ SDec1 \/ SPub1
    \/ XTake \/ XGive
    \/ HUse

Spec == Init /\ [][Next]_vars

(* Invariants *)

Modes == {"sched", "task", "spawning", "chklent", "chkcur", "endslow", "giveup"}

TypeOK ==
    /\ st.h \in {W, X, Nobody} /\ st.g \in 0..MaxGen
    /\ st.s \in {"idle", "sched", "task", "spawn"}
    /\ wp \in BOOLEAN
    /\ Len(stack) <= Depth
    /\ mode \in Modes
    /\ cur \in 0..MaxGen
    /\ lent \in 0..1
    /\ spc \in {"idle", "inc", "cas", "pub", "dec", "dec1", "pub1"}
    /\ xpc \in {"idle", "holds"}

StaleNeverAccepted == ~stale

NoFalseStale == ~falseStale

\* W's spawn uses the queue only while W holds the P in pSpawn under its
\* running task's generation, and then X does not hold it.
OnlyHolderTouchesQueue ==
    mode = "spawning" => (wp /\ st = Word(W, Top, "spawn") /\ xpc = "idle")

\* w.cur names W's innermost running task or nothing: never a returned
\* task, nor an outer task while a task its Wait runs is running.
CurNamesTop == cur = None \/ cur = Top
=============================================================================
