---------------------------- MODULE ExecutorFine ----------------------------
(***************************************************************************)
(* executor.Executor's M loop and spinning at the Go code's grain, beside  *)
(* Executor.tla, where Release (with DropSpinning and its re-check),       *)
(* HandoffP, Wakep, StartM, StopM, ResetSpinning and the steal are one     *)
(* step each. Here every access outside the scheduler lock is a step of   *)
(* its own, and every segment under sched.mu is one step (Spinning.tla     *)
(* checks the order of the writes inside them):                           *)
(*                                                                         *)
(*   findRunnable: the looks (local, global) | the spinning rule | one     *)
(*     steal step per victim | release (idle.Set, ReleaseP under mu) |     *)
(*     DropSpinning's decrement | Config.Work's re-check, one queue per    *)
(*     step (the global queue, then each P) | pidlegetSpinning under mu |  *)
(*     StopM under mu | the woken M's takeP;                               *)
(*   Wakep: the load of nmspinning | the CAS 0 -> 1 | pidleget (or give    *)
(*     the count back and set needspinning) under mu | startm under mu;    *)
(*   HandoffP: Config.Work's look, one queue per step | the nmspinning +   *)
(*     npidle test and CAS | the needspinning test or pidleput under mu |  *)
(*     startm;                                                             *)
(*   execute: ResetSpinning's decrement, then its Wakep;                   *)
(*   a spawn: PutNext | wakeIfIdle's load of npidle | its load of          *)
(*     nmspinning | Wakep.                                                 *)
(*                                                                         *)
(* So the drop-and-recheck's window occurs: a spawn or a submit can land   *)
(* between a spinner's look and its decrement, or behind the queue its     *)
(* re-check has passed, and its Wakep can read nmspinning before or after  *)
(* the decrement. Groups and Wait are Executor.tla's (at the coarse        *)
(* grain); the HandoffP here is sysmon's, the same function giveUpP calls. *)
(*                                                                         *)
(* Tasks: a hog spawns its kid, then blocks (it may never end; sysmon      *)
(* frees its P); a leaf ends. Outside submits its batches in order.        *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    Procs,    \* the number of Ps; they are 1..Procs
    Program,  \* "small", "long" or "preempt"
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   NoRecheck          Config.Work answers "no work" (the drop's re-check
\*                      and HandoffP's look): the Go mutation of that name
\*   RecheckGlobalOnly  Config.Work looks at the global queue only (the Go
\*                      mutation of that name)
\*   DecAfterRecheck    DropSpinning re-checks the queues first and gives
\*                      its nmspinning count back after: a spawn whose
\*                      wakeIfIdle reads the count in between skips its
\*                      wakeup (the order the Go comment on DropSpinning
\*                      requires; only a split step can show it)
\*   PreemptNoWake      (program "preempt") the runnext item that a preempt
\*                      request sends to the global queue wakes nobody
\*                      (localGet without its wakeIfIdle)
Mutants == {"none", "NoRecheck", "RecheckGlobalOnly", "DecAfterRecheck",
            "TakePKeepsMask", "PreemptNoWake"}
\* TakePKeepsMask (the spec only): takeP leaves the P in stealing's idle
\* mask, so thieves skip a P that an M holds and fills: no steal from it
\* ever succeeds once it has idled (the owner and sysmon's handoff still
\* run its work, so no other property sees it).

ASSUME /\ IsFiniteSet(Ms) /\ Ms # {}
       /\ Procs \in Nat /\ Procs >= 1
       /\ Program \in {"small", "long", "preempt"}
       /\ Mutant \in Mutants

(***************************************************************************)
(* small: hog 1 (spawns leaf 3), then leaf 2, from outside. long: hog 1    *)
(* spawns leaves 3 and 4, then leaf 2. preempt: small, and sysmon's        *)
(* preempt request may be honoured at any get (PreemptRequeue).            *)
(***************************************************************************)
N == IF Program = "long" THEN 4 ELSE 3
Tasks == 1..N
Kind(t) == IF t = 1 THEN "hog" ELSE "leaf"
Kids(t) == IF t = 1 THEN (IF Program = "long" THEN <<3, 4>> ELSE <<3>>) ELSE <<>>
Outside == << <<1>>, <<2>> >>
NK(t) == Len(Kids(t))

Ps == 1..Procs
NoItem == 0
Sub == "sub"      \* the outside submitter
Sys == "sysmon"
Agents == Ms \cup {Sub, Sys}
NoHand == <<0, FALSE>>

VARIABLES
    glob, rnext, ring,     \* the run queues, as in Executor.tla
    pidle,    \* the Sched's idle Ps
    imask,    \* stealing's idle mask
    nmspin,   \* sched.nmspinning
    needspin, \* sched.needspinning
    midle,    \* the idle M list, a stack
    pend,     \* handoffs waiting for an M, a stack of <<P, spin>>
    pc,       \* pc[a]: where agent a is
    ret,      \* ret[a]: where a goes when its Wakep or HandoffP returns
    hand,     \* hand[a]: <<P, spin>> that a's startm is about to hand on
    ridx,     \* ridx[a]: the queue Config.Work looks at next (0: global)
    hold,     \* hold[m]: the P M m holds, 0 for none
    spin,     \* spin[m]: M m is spinning
    nxt,      \* nxt[m]: <<P, spin>> startm left a woken M (nextp)
    seen,     \* seen[m]: victims this steal has visited
    cur,      \* cur[m]: the task M m runs, NoItem for none
    tpc,      \* tpc[t]: kids task t has spawned
    nrun,     \* nrun[t]: times t started (capped at 2)
    done,     \* tasks that ended
    subm      \* batches of Outside submitted

vars == <<glob, rnext, ring, pidle, imask, nmspin, needspin, midle, pend, pc,
          ret, hand, ridx, hold, spin, nxt, seen, cur, tpc, nrun, done, subm>>
sched == <<pidle, imask, nmspin, needspin, midle, pend>>
queues == <<glob, rnext, ring>>
mstate == <<hold, spin, nxt, seen, cur>>
tasks == <<tpc, nrun, done, subm>>

PCs == {"idle",                                  \* Sub, Sys: between calls
        "park", "woken", "find", "spinrule", "steal", "releasep", "drop",
        "recheck", "recheckget", "dec", "stopm", "exitp", "reset", "run",
        "wi", "wi2", "pput", "pwi", "pwi2",
        "wk", "wkcas", "wklock", "startm",         \* Wakep, startm
        "howork", "hocas", "holock"}               \* HandoffP

Range(s) == {s[i] : i \in DOMAIN s}
Top(s) == s[Len(s)]
Pop(s) == SubSeq(s, 1, Len(s) - 1)
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
Min2(a, b) == IF a < b THEN a ELSE b
Count(s, x) == Cardinality({i \in DOMAIN s : s[i] = x})

Init ==
    /\ glob = <<>> /\ rnext = [p \in Ps |-> NoItem] /\ ring = [p \in Ps |-> <<>>]
    /\ pidle = Ps /\ imask = Ps /\ nmspin = 0 /\ needspin = FALSE
    /\ midle = CHOOSE s \in [1..Cardinality(Ms) -> Ms] : Range(s) = Ms
    /\ pend = <<>>
    /\ pc = [a \in Agents |-> IF a \in Ms THEN "park" ELSE "idle"]
    /\ ret = [a \in Agents |-> "idle"]
    /\ hand = [a \in Agents |-> NoHand]
    /\ ridx = [a \in Agents |-> 0]
    /\ hold = [m \in Ms |-> 0] /\ spin = [m \in Ms |-> FALSE]
    /\ nxt = [m \in Ms |-> NoHand] /\ seen = [m \in Ms |-> {}]
    /\ cur = [m \in Ms |-> NoItem]
    /\ tpc = [t \in Tasks |-> 0] /\ nrun = [t \in Tasks |-> 0]
    /\ done = {} /\ subm = 0

LocalEmpty(p) == rnext[p] = NoItem /\ ring[p] = <<>>
\* Queue i of Config.Work's look: 0 the global queue, p a P's.
HasWork(i) == IF i = 0 THEN glob # <<>> ELSE ~LocalEmpty(i)
\* The last queue Config.Work looks at.
LastQ == IF Mutant = "RecheckGlobalOnly" THEN 0 ELSE Procs

Goto(a, l) == pc' = [pc EXCEPT ![a] = l]
\* Back from a Wakep or a HandoffP (ret cleared, so that it names no state).
Return(a) == pc' = [pc EXCEPT ![a] = ret[a]] /\ ret' = [ret EXCEPT ![a] = "idle"]

---------------------------------------------------------------------------
(* Wakep (spinning.Sched.Wakep) and startm, for any agent a, returning to  *)
(* ret[a].                                                                 *)

CallWakep(a, r) == /\ pc' = [pc EXCEPT ![a] = "wk"] /\ ret' = [ret EXCEPT ![a] = r]

\* The fast path: one load of nmspinning.
WkLoad(a) ==
    /\ pc[a] = "wk"
    /\ IF nmspin # 0 THEN Return(a) ELSE Goto(a, "wkcas") /\ UNCHANGED ret
    /\ UNCHANGED <<queues, sched, hand, ridx, mstate, tasks>>

WkCAS(a) ==
    /\ pc[a] = "wkcas"
    /\ IF nmspin = 0
         THEN nmspin' = 1 /\ Goto(a, "wklock") /\ UNCHANGED ret
         ELSE UNCHANGED nmspin /\ Return(a)
    /\ UNCHANGED <<queues, pidle, imask, needspin, midle, pend, hand, ridx,
                   mstate, tasks>>

\* Under mu: pidleget, or give the count back and set needspinning.
WkLock(a) ==
    /\ pc[a] = "wklock"
    /\ IF pidle # {}
         THEN LET p == MinOf(pidle)
              IN /\ pidle' = pidle \ {p} /\ hand' = [hand EXCEPT ![a] = <<p, TRUE>>]
                 /\ Goto(a, "startm") /\ UNCHANGED <<nmspin, needspin, ret>>
         ELSE /\ nmspin' = nmspin - 1 /\ needspin' = TRUE
              /\ Return(a) /\ UNCHANGED <<pidle, hand>>
    /\ UNCHANGED <<queues, imask, midle, pend, ridx, mstate, tasks>>

\* startm under mu: the last idle M gets the P (nextp) and is woken, or
\* the handoff waits for the next StopM.
StartM(a) ==
    /\ pc[a] = "startm"
    /\ IF midle # <<>>
         THEN LET n == Top(midle)
              IN /\ midle' = Pop(midle) /\ nxt' = [nxt EXCEPT ![n] = hand[a]]
                 /\ pc' = [pc EXCEPT ![n] = "woken", ![a] = ret[a]]
                 /\ UNCHANGED pend
         ELSE /\ pend' = Append(pend, hand[a]) /\ Goto(a, ret[a])
              /\ UNCHANGED <<midle, nxt>>
    /\ hand' = [hand EXCEPT ![a] = NoHand] /\ ret' = [ret EXCEPT ![a] = "idle"]
    /\ UNCHANGED <<queues, pidle, imask, nmspin, needspin, ridx, hold, spin,
                   seen, cur, tasks>>

Wakep(a) == WkLoad(a) \/ WkCAS(a) \/ WkLock(a) \/ StartM(a)

---------------------------------------------------------------------------
(* The M loop.                                                             *)

\* takeP's idle.Clear: P q leaves stealing's idle mask as an M takes it
\* (TakePKeepsMask: it stays).
Unmask(q) == IF Mutant = "TakePKeepsMask" THEN imask ELSE imask \ {q}

\* Item x leaves its queue and M m runs it: execute, after ResetSpinning.
Take(m, x) ==
    /\ cur' = [cur EXCEPT ![m] = x]
    /\ nrun' = [nrun EXCEPT ![x] = IF @ < 2 THEN @ + 1 ELSE 2]
    /\ Goto(m, IF spin[m] THEN "reset" ELSE "run")

\* findRunnable's looks, holding P p in pSched: the 1-in-61 check (any
\* time both queues hold work), localGet, globalBatch; nothing: the rule.
\* One step: only the holder puts into p's queue, so its look and the
\* global one may as well be at one instant.
Find(m) ==
    /\ pc[m] = "find"
    /\ LET p == hold[m] IN
       \/ /\ glob # <<>> /\ ~LocalEmpty(p)
          /\ Take(m, Head(glob)) /\ glob' = Tail(glob) /\ UNCHANGED <<rnext, ring>>
       \/ /\ rnext[p] # NoItem
          /\ Take(m, rnext[p]) /\ rnext' = [rnext EXCEPT ![p] = NoItem]
          /\ UNCHANGED <<glob, ring>>
       \/ /\ rnext[p] = NoItem /\ ring[p] # <<>>
          /\ Take(m, Head(ring[p])) /\ ring' = [ring EXCEPT ![p] = Tail(@)]
          /\ UNCHANGED <<glob, rnext>>
       \/ /\ LocalEmpty(p) /\ glob # <<>>
          /\ LET n == Min2(Len(glob), Len(glob) \div Procs + 1)
             IN /\ Take(m, Head(glob))
                /\ ring' = [ring EXCEPT ![p] = SubSeq(glob, 2, n)]
                /\ glob' = SubSeq(glob, n + 1, Len(glob))
                /\ UNCHANGED rnext
       \/ /\ LocalEmpty(p) /\ glob = <<>>
          /\ Goto(m, "spinrule") /\ UNCHANGED <<queues, cur, nrun>>
    /\ UNCHANGED <<sched, ret, hand, ridx, hold, spin, nxt, seen, tpc, done, subm>>

\* BecomeSpinning: spin while 2 * nmspinning < Procs - npidle.
SpinRule(m) ==
    /\ pc[m] = "spinrule"
    /\ IF spin[m] \/ 2 * nmspin < Procs - Cardinality(pidle)
         THEN /\ spin' = [spin EXCEPT ![m] = TRUE]
              /\ nmspin' = IF spin[m] THEN nmspin ELSE nmspin + 1
              /\ needspin' = IF spin[m] THEN needspin ELSE FALSE
              /\ Goto(m, "steal")
         ELSE /\ Goto(m, "releasep") /\ UNCHANGED <<spin, nmspin, needspin>>
    /\ UNCHANGED <<queues, pidle, imask, midle, pend, ret, hand, ridx, hold, nxt,
                   seen, cur, tasks>>

\* One victim v per step (stealing.Stealer.Steal's passes, in any order):
\* half its ring rounded up (the first runs, the rest to the thief's empty
\* ring), else its runnext task; a victim in the idle mask is skipped.
\* Steal.tla checks the four passes and the runnext delay.
Steal(m) ==
    /\ pc[m] = "steal"
    /\ LET p == hold[m] IN
       \E v \in Ps \ ({p} \cup seen[m]) :
         IF v \notin imask /\ ring[v] # <<>>
           THEN LET n == (Len(ring[v]) + 1) \div 2
                IN /\ Take(m, Head(ring[v]))
                   /\ ring' = [ring EXCEPT ![v] = SubSeq(@, n + 1, Len(@)),
                                           ![p] = SubSeq(ring[v], 2, n)]
                   /\ seen' = [seen EXCEPT ![m] = {}]
                   /\ UNCHANGED <<glob, rnext>>
         ELSE IF v \notin imask /\ rnext[v] # NoItem
           THEN /\ Take(m, rnext[v]) /\ rnext' = [rnext EXCEPT ![v] = NoItem]
                /\ seen' = [seen EXCEPT ![m] = {}]
                /\ UNCHANGED <<glob, ring>>
         ELSE LET s == seen[m] \cup {v}
              IN /\ IF s = Ps \ {p}
                      THEN seen' = [seen EXCEPT ![m] = {}] /\ Goto(m, "releasep")
                      ELSE seen' = [seen EXCEPT ![m] = s] /\ UNCHANGED pc
                 /\ UNCHANGED <<queues, cur, nrun>>
    /\ UNCHANGED <<sched, ret, hand, ridx, hold, spin, nxt, tpc, done, subm>>

\* Nothing found (with one P there is no victim: the steal finds nothing).
\* idle.Set and the status word's pIdle, then ReleaseP under mu: a
\* non-spinning M that sees needspinning spins instead and keeps the P
\* (takeP); else the P goes idle.
ReleaseP(m) ==
    /\ pc[m] = "releasep"
    /\ LET p == hold[m] IN
       IF ~spin[m] /\ needspin
         THEN /\ spin' = [spin EXCEPT ![m] = TRUE] /\ nmspin' = nmspin + 1
              /\ needspin' = FALSE /\ Goto(m, "find")
              /\ UNCHANGED <<pidle, imask, hold>>
         ELSE /\ pidle' = pidle \cup {p} /\ imask' = imask \cup {p}
              /\ hold' = [hold EXCEPT ![m] = 0]
              /\ Goto(m, IF spin[m] THEN "drop" ELSE "stopm")
              /\ UNCHANGED <<spin, nmspin, needspin>>
    /\ UNCHANGED <<queues, midle, pend, ret, hand, ridx, nxt, seen, cur, tasks>>

\* DropSpinning: give the count back, then re-check (DecAfterRecheck: the
\* other way round, the count given back in "dec").
Drop(m) ==
    /\ pc[m] = "drop"
    /\ IF Mutant = "DecAfterRecheck"
         THEN UNCHANGED <<spin, nmspin>>
         ELSE spin' = [spin EXCEPT ![m] = FALSE] /\ nmspin' = nmspin - 1
    /\ Goto(m, IF Mutant = "NoRecheck" THEN "stopm" ELSE "recheck")
    /\ ridx' = [ridx EXCEPT ![m] = 0]
    /\ UNCHANGED <<queues, pidle, imask, needspin, midle, pend, ret, hand, hold,
                   nxt, seen, cur, tasks>>

\* Config.Work, one queue per step; ret[m] says what it found for "dec".
Recheck(m) ==
    /\ pc[m] = "recheck"
    /\ LET i == ridx[m]
           found == HasWork(i)
           next == IF found THEN "recheckget" ELSE IF i = LastQ THEN "stopm" ELSE "recheck"
       IN /\ IF Mutant = "DecAfterRecheck" /\ next # "recheck"
               THEN Goto(m, "dec") /\ ret' = [ret EXCEPT ![m] = next]
               ELSE Goto(m, next) /\ UNCHANGED ret
          /\ ridx' = [ridx EXCEPT ![m] = IF next = "recheck" THEN i + 1 ELSE 0]
    /\ UNCHANGED <<queues, sched, hand, mstate, tasks>>

\* DecAfterRecheck only: the count given back after the re-check.
Dec(m) ==
    /\ pc[m] = "dec"
    /\ spin' = [spin EXCEPT ![m] = FALSE] /\ nmspin' = nmspin - 1
    /\ Return(m)
    /\ UNCHANGED <<queues, pidle, imask, needspin, midle, pend, hand, ridx,
                   hold, nxt, seen, cur, tasks>>

\* Work found: pidlegetSpinning under mu; with a P, becomeSpinning and
\* takeP; with none, needspinning is set and the M stops.
RecheckGet(m) ==
    /\ pc[m] = "recheckget"
    /\ IF pidle # {}
         THEN LET q == MinOf(pidle)
              IN /\ pidle' = pidle \ {q} /\ imask' = Unmask(q)
                 /\ hold' = [hold EXCEPT ![m] = q] /\ spin' = [spin EXCEPT ![m] = TRUE]
                 /\ nmspin' = nmspin + 1 /\ needspin' = FALSE
                 /\ Goto(m, "find")
         ELSE /\ needspin' = TRUE /\ Goto(m, "stopm")
              /\ UNCHANGED <<pidle, imask, hold, spin, nmspin>>
    /\ UNCHANGED <<queues, midle, pend, ret, hand, ridx, nxt, seen, cur, tasks>>

\* StopM under mu: a waiting handoff, or park on the idle list.
StopM(m) ==
    /\ pc[m] = "stopm"
    /\ IF pend # <<>>
         THEN LET h == Top(pend)
              IN /\ pend' = Pop(pend) /\ hold' = [hold EXCEPT ![m] = h[1]]
                 /\ spin' = [spin EXCEPT ![m] = h[2]] /\ imask' = Unmask(h[1])
                 /\ Goto(m, "find") /\ UNCHANGED midle
         ELSE /\ midle' = Append(midle, m) /\ Goto(m, "park")
              /\ UNCHANGED <<pend, hold, spin, imask>>
    /\ UNCHANGED <<queues, pidle, nmspin, needspin, ret, hand, ridx, nxt, seen, cur, tasks>>

\* The woken M takes the P startm left it (stopEnd, unparked's takeP).
Woken(m) ==
    /\ pc[m] = "woken"
    /\ hold' = [hold EXCEPT ![m] = nxt[m][1]] /\ spin' = [spin EXCEPT ![m] = nxt[m][2]]
    /\ imask' = Unmask(nxt[m][1]) /\ nxt' = [nxt EXCEPT ![m] = NoHand]
    /\ Goto(m, "find")
    /\ UNCHANGED <<queues, pidle, nmspin, needspin, midle, pend, ret, hand, ridx,
                   seen, cur, tasks>>

\* exitP: AcquireP under mu, else StopM (its own step).
ExitP(m) ==
    /\ pc[m] = "exitp"
    /\ IF pidle # {}
         THEN LET q == MinOf(pidle)
              IN /\ pidle' = pidle \ {q} /\ imask' = Unmask(q)
                 /\ hold' = [hold EXCEPT ![m] = q] /\ Goto(m, "find")
         ELSE Goto(m, "stopm") /\ UNCHANGED <<pidle, imask, hold>>
    /\ UNCHANGED <<queues, nmspin, needspin, midle, pend, ret, hand, ridx, spin, nxt,
                   seen, cur, tasks>>

\* execute's ResetSpinning: give the count back, then Wakep.
Reset(m) ==
    /\ pc[m] = "reset"
    /\ spin' = [spin EXCEPT ![m] = FALSE] /\ nmspin' = nmspin - 1
    /\ CallWakep(m, "run")
    /\ UNCHANGED <<queues, pidle, imask, needspin, midle, pend, hand, ridx, hold,
                   nxt, seen, cur, tasks>>

---------------------------------------------------------------------------
(* The task on M m. A spawn holding the P (the CAS to pSpawn succeeds):    *)
(* PutNext, then wakeIfIdle; after a retake: the global queue and Wakep.   *)

Spawn(m) ==
    /\ pc[m] = "run"
    /\ LET t == cur[m]
           k == Kids(t)[tpc[t] + 1]
           p == hold[m]
       IN /\ tpc[t] < NK(t)
          /\ tpc' = [tpc EXCEPT ![t] = @ + 1]
          /\ IF p # 0
               THEN /\ ring' = IF rnext[p] = NoItem THEN ring
                               ELSE [ring EXCEPT ![p] = Append(@, rnext[p])]
                    /\ rnext' = [rnext EXCEPT ![p] = k]
                    /\ Goto(m, "wi") /\ UNCHANGED <<glob, ret>>
               ELSE /\ glob' = Append(glob, k) /\ CallWakep(m, "run")
                    /\ UNCHANGED <<rnext, ring>>
    /\ UNCHANGED <<sched, hand, ridx, mstate, nrun, done, subm>>

\* wakeIfIdle: npidle, then nmspinning, each one load.
WakeIfIdle(m) ==
    /\ pc[m] = "wi"
    /\ Goto(m, IF pidle # {} THEN "wi2" ELSE "run")
    /\ UNCHANGED <<queues, sched, ret, hand, ridx, mstate, tasks>>

WakeIfIdle2(m) ==
    /\ pc[m] = "wi2"
    /\ IF nmspin = 0 THEN CallWakep(m, "run") ELSE (Goto(m, "run") /\ UNCHANGED ret)
    /\ UNCHANGED <<queues, sched, hand, ridx, mstate, tasks>>

\* The task returns: claim the P (pSched), or, retaken, exitP.
End(m) ==
    /\ pc[m] = "run"
    /\ LET t == cur[m] IN tpc[t] = NK(t) /\ done' = done \cup {t}
    /\ cur' = [cur EXCEPT ![m] = NoItem]
    /\ Goto(m, IF hold[m] # 0 THEN "find" ELSE "exitp")
    /\ UNCHANGED <<queues, sched, ret, hand, ridx, hold, spin, nxt, seen, tpc, nrun, subm>>

HogEnd(m) == Kind(cur[m]) = "hog" /\ End(m)

\* The preempt path (program "preempt"): sysmon's request (abstract: any
\* time; it is not fair) is honoured at M m's next get from its P p: with
\* a task in p's runnext and work queued behind it (p's ring, or the global
\* queue), the get takes the runnext task (PreemptRequeue: in m's hands,
\* cur, in no queue), global.Put puts it at the global queue's tail
\* (PreemptPut), then wakeIfIdle (npidle, then nmspinning, each one load),
\* and the get goes on. It mirrors localGet's preempt branch
\* (executor/sched.go: p.q.Get, then global.Put and wakeIfIdle; the
\* runtime's gopreempt_m puts the goroutine on the global queue).
\* PreemptNoWake goes on without the wakeIfIdle: a dropping spinner's
\* re-check that passed p's queue while the task was in m's hands stops,
\* and nobody wakes for the task (NoLostWakeup). With the get and the put
\* one step, PreemptNoWake passes: the task is always queued, and the
\* wakeup its first put owed covers it.
PreemptRequeue(m) ==
    /\ Program = "preempt" /\ pc[m] = "find"
    /\ LET p == hold[m] IN
       /\ rnext[p] # NoItem /\ (ring[p] # <<>> \/ glob # <<>>)
       /\ cur' = [cur EXCEPT ![m] = rnext[p]] /\ rnext' = [rnext EXCEPT ![p] = NoItem]
    /\ Goto(m, "pput")
    /\ UNCHANGED <<glob, ring, sched, ret, hand, ridx, hold, spin, nxt, seen, tasks>>

\* global.Put of the task the get took (held in cur meanwhile).
PreemptPut(m) ==
    /\ pc[m] = "pput"
    /\ glob' = Append(glob, cur[m]) /\ cur' = [cur EXCEPT ![m] = NoItem]
    /\ Goto(m, IF Mutant = "PreemptNoWake" THEN "find" ELSE "pwi")
    /\ UNCHANGED <<rnext, ring, sched, ret, hand, ridx, hold, spin, nxt, seen, tasks>>

PWakeIfIdle(m) ==
    /\ pc[m] = "pwi"
    /\ Goto(m, IF pidle # {} THEN "pwi2" ELSE "find")
    /\ UNCHANGED <<queues, sched, ret, hand, ridx, mstate, tasks>>

PWakeIfIdle2(m) ==
    /\ pc[m] = "pwi2"
    /\ IF nmspin = 0 THEN CallWakep(m, "find") ELSE (Goto(m, "find") /\ UNCHANGED ret)
    /\ UNCHANGED <<queues, sched, hand, ridx, mstate, tasks>>
LeafEnd(m) == cur[m] # NoItem /\ Kind(cur[m]) = "leaf" /\ End(m)

---------------------------------------------------------------------------
(* From outside: publish the next batch, then Wakep.                       *)

Submit ==
    /\ pc[Sub] = "idle" /\ subm < Len(Outside)
    /\ subm' = subm + 1 /\ glob' = glob \o Outside[subm + 1]
    /\ CallWakep(Sub, "idle")
    /\ UNCHANGED <<rnext, ring, sched, hand, ridx, mstate, tpc, nrun, done>>

(***************************************************************************)
(* sysmon: retake P p from a task (pTask) while work waits for it (its own *)
(* queue, or the global queue with no P idle), then HandoffP: the look at  *)
(* the queues (Config.Work, one per step): work, startm; else the          *)
(* nmspinning + npidle test and CAS: a spinning M; else under mu:          *)
(* needspinning, a spinning M; else pidleput.                              *)
(***************************************************************************)
\* The M runs its task in pTask: in its body, its spawn's wakeIfIdle, or
\* that spawn's Wakep (a task that spawned; execute's ResetSpinning and its
\* Wakep come before the P goes to pTask).
InTask(m) ==
    /\ cur[m] # NoItem
    /\ \/ pc[m] \in {"run", "wi", "wi2"}
       \/ pc[m] \in {"wk", "wkcas", "wklock", "startm"} /\ ret[m] = "run"
          /\ tpc[cur[m]] > 0

Retake ==
    /\ pc[Sys] = "idle"
    /\ \E m \in Ms :
         /\ hold[m] # 0 /\ InTask(m)
         /\ ~LocalEmpty(hold[m]) \/ (glob # <<>> /\ pidle = {})
         /\ hold' = [hold EXCEPT ![m] = 0]
         /\ hand' = [hand EXCEPT ![Sys] = <<hold[m], FALSE>>]
    /\ Goto(Sys, "howork") /\ ret' = [ret EXCEPT ![Sys] = "idle"]
    /\ ridx' = [ridx EXCEPT ![Sys] = 0]
    /\ UNCHANGED <<queues, sched, spin, nxt, seen, cur, tasks>>

HoWork ==
    /\ pc[Sys] = "howork"
    /\ LET i == ridx[Sys] IN
       IF Mutant # "NoRecheck" /\ HasWork(i)
         THEN Goto(Sys, "startm") /\ ridx' = [ridx EXCEPT ![Sys] = 0]
       ELSE IF Mutant = "NoRecheck" \/ i = LastQ
         THEN Goto(Sys, "hocas") /\ ridx' = [ridx EXCEPT ![Sys] = 0]
       ELSE Goto(Sys, "howork") /\ ridx' = [ridx EXCEPT ![Sys] = i + 1]
    /\ UNCHANGED <<queues, sched, ret, hand, mstate, tasks>>

HoCAS ==
    /\ pc[Sys] = "hocas"
    /\ IF nmspin + Cardinality(pidle) = 0
         THEN /\ nmspin' = 1 /\ needspin' = FALSE
              /\ hand' = [hand EXCEPT ![Sys][2] = TRUE] /\ Goto(Sys, "startm")
         ELSE Goto(Sys, "holock") /\ UNCHANGED <<nmspin, needspin, hand>>
    /\ UNCHANGED <<queues, pidle, imask, midle, pend, ret, ridx, mstate, tasks>>

HoLock ==
    /\ pc[Sys] = "holock"
    /\ IF needspin
         THEN /\ needspin' = FALSE /\ nmspin' = nmspin + 1
              /\ hand' = [hand EXCEPT ![Sys][2] = TRUE] /\ Goto(Sys, "startm")
              /\ UNCHANGED <<pidle, ret>>
         ELSE /\ pidle' = pidle \cup {hand[Sys][1]} /\ hand' = [hand EXCEPT ![Sys] = NoHand]
              /\ Return(Sys) /\ UNCHANGED <<nmspin, needspin>>
    /\ UNCHANGED <<queues, imask, midle, pend, ridx, mstate, tasks>>

HandoffP == HoWork \/ HoCAS \/ HoLock \/ StartM(Sys)

---------------------------------------------------------------------------

MStep(m) ==
    \/ Find(m) \/ SpinRule(m) \/ Steal(m) \/ ReleaseP(m) \/ Drop(m)
    \/ Recheck(m) \/ Dec(m) \/ RecheckGet(m) \/ StopM(m) \/ Woken(m) \/ ExitP(m)
    \/ Reset(m) \/ Spawn(m) \/ WakeIfIdle(m) \/ WakeIfIdle2(m) \/ LeafEnd(m)
    \/ Wakep(m) \/ PreemptPut(m) \/ PWakeIfIdle(m) \/ PWakeIfIdle2(m)

SubStep == Submit \/ Wakep(Sub)

Next ==
    \/ SubStep \/ Retake \/ HandoffP
    \/ \E m \in Ms : MStep(m) \/ HogEnd(m) \/ PreemptRequeue(m)

\* A started handoff finishes; a retake's own fairness is SysmonFair's.
Spec ==
    /\ Init /\ [][Next]_vars
    /\ WF_vars(SubStep) /\ WF_vars(HandoffP)
    /\ \A m \in Ms : WF_vars(MStep(m))

---------------------------------------------------------------------------
(* Safety.                                                                 *)

TypeOK ==
    /\ glob \in Seq(Tasks) /\ rnext \in [Ps -> Tasks \cup {NoItem}]
    /\ ring \in [Ps -> Seq(Tasks)]
    /\ pidle \subseteq Ps /\ imask \subseteq Ps
    /\ nmspin \in Nat /\ needspin \in BOOLEAN
    /\ midle \in Seq(Ms) /\ pend \in Seq(Ps \X BOOLEAN)
    /\ pc \in [Agents -> PCs] /\ ret \in [Agents -> PCs]
    /\ hand \in [Agents -> ({0} \cup Ps) \X BOOLEAN]
    /\ ridx \in [Agents -> 0..Procs]
    /\ hold \in [Ms -> Ps \cup {0}] /\ spin \in [Ms -> BOOLEAN]
    /\ nxt \in [Ms -> ({0} \cup Ps) \X BOOLEAN] /\ seen \in [Ms -> SUBSET Ps]
    /\ cur \in [Ms -> Tasks \cup {NoItem}]
    /\ tpc \in [Tasks -> 0..N] /\ nrun \in [Tasks -> 0..2]
    /\ done \subseteq Tasks /\ subm \in 0..Len(Outside)

Made(t) ==
    \/ \E i \in 1..subm : t \in Range(Outside[i])
    \/ \E f \in Tasks : \E i \in 1..tpc[f] : Kids(f)[i] = t

RingCount(t) == LET F[S \in SUBSET Ps] == IF S = {} THEN 0
                                         ELSE LET p == CHOOSE q \in S : TRUE
                                              IN Count(ring[p], t) + F[S \ {p}]
                IN F[Ps]
Queued(t) == Count(glob, t) + Cardinality({p \in Ps : rnext[p] = t}) + RingCount(t)
Running(t) == Cardinality({m \in Ms : cur[m] = t /\ pc[m] # "pput"})
\* A preempted runnext task between localGet's get and its global.Put.
Held(t) == Cardinality({m \in Ms : cur[m] = t /\ pc[m] = "pput"})

\* Every task made is in exactly one place; it runs at most once.
Conservation ==
    \A t \in Tasks :
       Queued(t) + Held(t) + Running(t) + (IF t \in done THEN 1 ELSE 0)
         = IF Made(t) THEN 1 ELSE 0
ExactlyOnce ==
    \A t \in Tasks : nrun[t] <= 1 /\ ((nrun[t] = 1) <=> (Running(t) = 1 \/ t \in done))

\* Every P is in exactly one place: held, idle, waiting in a handoff, in
\* an agent's hands on its way to startm, or left to a woken M.
PConservation ==
    \A p \in Ps :
       Cardinality({m \in Ms : hold[m] = p}) + (IF p \in pidle THEN 1 ELSE 0)
       + Count([i \in DOMAIN pend |-> pend[i][1]], p)
       + Cardinality({a \in Agents : hand[a][1] = p})
       + Cardinality({m \in Ms : nxt[m][1] = p}) = 1

\* nmspinning counts the spinning Ms, the spinning handoffs waiting or on
\* their way (to startm, or left to a woken M), and a Wakep between its
\* CAS and its pidleget.
SpinCount ==
    nmspin = Cardinality({m \in Ms : spin[m]})
             + Cardinality({i \in DOMAIN pend : pend[i][2]})
             + Cardinality({a \in Agents : hand[a][2]})
             + Cardinality({m \in Ms : nxt[m][2]})
             + Cardinality({a \in Agents : pc[a] = "wklock"})

\* No lost wakeup, at this grain: while a task is queued and a P is idle,
\* an M spins (nmspinning > 0: a spinner, or a spinning handoff on its
\* way), a handoff waits or is under way (sysmon's HandoffP, a startm), an
\* M is about to take an idle P (exitP), a waker is on its way (after its
\* publish: wakeIfIdle's loads, Wakep's load and CAS, which go on while no
\* M spins and a P idles), or a dropping spinner's re-check has still to
\* look at a queue that holds a task (or has found one).
WorkQueued == glob # <<>> \/ \E p \in Ps : ~LocalEmpty(p)
Waking(a) == pc[a] \in {"wi", "wi2", "pwi", "pwi2", "wk", "wkcas"}
WillSee(m) == \/ pc[m] = "recheckget"
              \/ pc[m] = "recheck" /\ \E i \in ridx[m]..Procs : HasWork(i)
NoLostWakeup ==
    (WorkQueued /\ pidle # {}) =>
        \/ nmspin > 0
        \/ pend # <<>>
        \/ pc[Sys] \in {"howork", "hocas", "holock", "startm"}
        \/ \E a \in Agents : Waking(a)
        \/ \E m \in Ms : pc[m] \in {"exitp", "woken"} \/ WillSee(m)

\* IdleMaskOnlyIdle: stealing's idle mask holds only idle Ps: a P in it is
\* held by no M and its queue is empty, so a thief that skips it misses no
\* work. The mask is set as a P is released with its queue empty and
\* cleared by takeP (executor/sched.go: findRunnable's idle.Set before
\* releasep; takeP's idle.Clear, the only way out of pIdle); stealing's
\* Stealer skips masked victims (the runtime's idlepMask in stealWork).
IdleMaskOnlyIdle ==
    \A p \in imask : LocalEmpty(p) /\ \A m \in Ms : hold[m] # p

---------------------------------------------------------------------------
(* Liveness, as in Executor.tla: every task runs, even if the hog never    *)
(* returns, given that sysmon retakes whenever it can and that no handoff  *)
(* waits forever for an M.                                                 *)

MsSuffice == []<>(pend = <<>>)
SysmonFair == WF_vars(Retake)
\* nrun never falls, so this is \A t : <>(nrun[t] >= 1), in one branch of
\* TLC's liveness check instead of one per task.
AllTasksRun == (MsSuffice /\ SysmonFair) => <>(\A t \in Tasks : nrun[t] >= 1)
=============================================================================
