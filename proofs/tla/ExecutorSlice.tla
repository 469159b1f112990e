--------------------------- MODULE ExecutorSlice ---------------------------
(***************************************************************************)
(* executor.Executor's time slice, beside Executor.tla: one P, two Ms and  *)
(* sysmon, at the grain of the Go code's status word (proc.go's pIdle,     *)
(* pSched, pTask, pSpawn), which Executor.tla abstracts away.              *)
(*                                                                         *)
(* A slice starts when a task does not inherit one (execute: schedtick++, *)
(* tick here); a runnext task inherits it. sysmon notes each slice         *)
(* (retakeAll: seenTick, seenWhen) and, when it sees the same slice again  *)
(* a Slice later (abstract: any later round), acts if work waits for the  *)
(* P: first it sets the P's preempt request (p.preempted, the runtime's    *)
(* preemptone) whatever the holder does (pSched, pTask, pSpawn); a round  *)
(* later, if the slice has not moved and the holder is in a task (pTask), *)
(* it retakes the P by CAS and hands it off (retake, HandoffP). The P's    *)
(* next get from its queue honours the request and clears it: a runnext   *)
(* task does not inherit, it goes to the global queue's tail (localGet,    *)
(* gopreempt_m), or, with nothing queued behind it, starts a new slice.   *)
(*                                                                         *)
(* The 1-in-61 check (globalq.FairnessTick) is scaled down to one in Fair  *)
(* slices: tick counts slices modulo Fair * (Fair + 1), so the check and   *)
(* its off-by-one mutant are both exact.                                   *)
(*                                                                         *)
(* Programs: "pingpong": tasks A and B spawn each other through runnext    *)
(* forever (each spawns the other with Task.Go and returns), and task Q    *)
(* waits in the global queue. "local": the P's ring holds local work       *)
(* forever (tasks that spawn locally forever, abstracted: a get from the   *)
(* ring always finds a task L, which starts a new slice and ends), and Q   *)
(* waits in the global queue; only the fairness check can run it.         *)
(*                                                                         *)
(* The Go scheduler under the Ms is not modelled: an M yields every 64     *)
(* tasks (yieldEvery) so that sysmon, a goroutine, gets a Go P; here that  *)
(* is sysmon's weak fairness (NoYield drops it).                           *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Ms,       \* the Ms (model values)
    Program,  \* "pingpong" or "local"
    Fair,     \* globalq.FairnessTick's 61, scaled down
    Mutant    \* "none" is the real algorithm; any other name breaks one step

\* The broken variants:
\*   NoSchedPreempt         sysmon acts only on a P in pTask, by retaking
\*                          it (the Go code before the preempt request):
\*                          a fast ping-pong is almost always in pSched
\*   PreemptKeepsNext       the get after a preempt lets the runnext task
\*                          inherit the slice (the Go mutation)
\*   NoYield                sysmon gets no fairness: the M never yields its
\*                          Go P (the Go mutation)
\*   SpawnIgnoresOwnership  a spawn uses the P's queue without the CAS to
\*                          pSpawn (the Go mutation)
\*   NoFairnessTick         findRunnable never looks at the global queue
\*                          first (the Go mutation)
\*   FairnessEvery62        the look comes every Fair+1 slices (the Go
\*                          mutation, scaled)
\* and, in the spec only, one per property of issue 22:
\*   ClaimIgnoresHolder     a task's end claims the P by its state alone
\*                          (pTask, whoever holds it), so an M whose P was
\*                          retaken takes it back from the M that now runs
\*                          a task on it
\*   RetakeNewSlice         sysmon retakes with the request up without the
\*                          slice it saw overrun: a slice that has just
\*                          started (not yet noted) is retaken too
Mutants == {"none", "NoSchedPreempt", "PreemptKeepsNext", "NoYield",
            "SpawnIgnoresOwnership", "NoFairnessTick", "FairnessEvery62",
            "ClaimIgnoresHolder", "RetakeNewSlice"}

ASSUME /\ IsFiniteSet(Ms) /\ Cardinality(Ms) >= 2
       /\ Program \in {"pingpong", "local"}
       /\ Fair \in Nat /\ Fair >= 2
       /\ Mutant \in Mutants

TickMod == Fair * (Fair + 1)
Every == IF Mutant = "FairnessEvery62" THEN Fair + 1 ELSE Fair
None == "none"
Other(x) == IF x = "A" THEN "B" ELSE "A"

VARIABLES
    glob,     \* the global queue
    rnext,    \* the P's runnext slot (None when empty)
    ring,     \* the P's ring (pingpong; the local program's is endless)
    st,       \* the P's status word: [s: state, m: holder]
    pidle,    \* the P is on the Sched's idle list
    pend,     \* the P waits in a handoff for an M (NeedM)
    tick,     \* the P's schedtick, modulo TickMod
    fresh,    \* sysmon has not yet noted the current slice (seenTick)
    preempt,  \* the P's preempt request (p.preempted)
    pc,       \* pc[m]: where M m is
    wp,       \* wp[m]: M m's w.p names the P (it may have been retaken)
    cur,      \* cur[m]: the task M m runs
    midle,    \* the parked Ms
    ran,      \* Q has run
    qwait     \* slices started while Q waited in the global queue (capped)

vars == <<glob, rnext, ring, st, pidle, pend, tick, fresh, preempt, pc, wp,
          cur, midle, ran, qwait>>

\* An M's places: "find" findRunnable (pSched); "run" its task's body;
\* "put" a spawn holding pSpawn; "end" the task returned: claim the P
\* back; "exitp" no P (exitP); "park" on the idle list.
MPCs == {"find", "run", "put", "end", "exitp", "park"}

Init ==
    /\ glob = <<"Q">>
    /\ rnext = IF Program = "pingpong" THEN "A" ELSE None
    /\ ring = <<>>
    /\ \E m0 \in Ms :
         /\ st = [s |-> "sched", m |-> m0]
         /\ pc = [m \in Ms |-> IF m = m0 THEN "find" ELSE "park"]
         /\ wp = [m \in Ms |-> m = m0]
         /\ midle = Ms \ {m0}
    /\ pidle = FALSE /\ pend = FALSE
    /\ tick = 1 /\ fresh = TRUE /\ preempt = FALSE
    /\ cur = [m \in Ms |-> None]
    /\ ran = FALSE /\ qwait = 0

Own(m, s) == [s |-> s, m |-> m]
LocalWork == rnext # None \/ ring # <<>> \/ Program = "local"

\* startm for the P: a parked M takes it, else it waits (NeedM). pc0 is
\* the M places after the caller's own change.
StartM(pc0) ==
    IF midle # {}
      THEN LET n == CHOOSE x \in midle : TRUE
           IN /\ midle' = midle \ {n}
              /\ st' = Own(n, "sched")
              /\ pc' = [pc0 EXCEPT ![n] = "find"]
              /\ wp' = [wp EXCEPT ![n] = TRUE]
              /\ pend' = FALSE
      ELSE /\ pend' = TRUE /\ st' = Own(None, "idle")
           /\ pc' = pc0
           /\ UNCHANGED <<midle, wp>>

\* Wakep with one P: if it idles, start an M on it.
Wakep(pc0) ==
    IF pidle THEN /\ pidle' = FALSE /\ StartM(pc0)
    ELSE /\ pc' = pc0 /\ UNCHANGED <<pidle, pend, st, midle, wp>>

(***************************************************************************)
(* findRunnable on M m, the P in pSched: the fairness check, localGet      *)
(* (the preempt request first), a global batch (one P takes it all), or    *)
(* nothing: releasep and park. execute starts a slice unless inherited.    *)
(***************************************************************************)
Execute(m, x, inherit) ==
    /\ st' = Own(m, "task")
    /\ pc' = [pc EXCEPT ![m] = "run"]
    /\ cur' = [cur EXCEPT ![m] = x]
    /\ tick' = IF inherit THEN tick ELSE (tick + 1) % TickMod
    /\ fresh' = IF inherit THEN fresh ELSE TRUE
    /\ ran' = (ran \/ x = "Q")

\* qwait after a step that leaves glob' and starts a slice or not.
Waited(started) ==
    qwait' = IF started /\ "Q" \in {glob'[i] : i \in DOMAIN glob'}
               THEN IF qwait < Fair + 1 THEN qwait + 1 ELSE qwait
             ELSE IF "Q" \in {glob'[i] : i \in DOMAIN glob'} THEN qwait ELSE 0

FindRunnable(m) ==
    /\ pc[m] = "find"
    /\ \/ /\ glob # <<>> /\ tick % Every = 0 /\ Mutant # "NoFairnessTick"
          /\ LocalWork                             \* else the batch below takes it
          /\ glob' = Tail(glob)
          /\ Execute(m, Head(glob), FALSE) /\ Waited(TRUE)
          /\ UNCHANGED <<rnext, ring, preempt, pidle, pend, wp, midle>>
       \/ /\ ~(glob # <<>> /\ tick % Every = 0 /\ Mutant # "NoFairnessTick" /\ LocalWork)
          /\ IF rnext # None
               THEN IF preempt /\ Mutant # "PreemptKeepsNext"
                             /\ (ring # <<>> \/ glob # <<>>)
                      THEN \* localGet: the runnext task goes behind
                           /\ glob' = Append(glob, rnext)
                           /\ rnext' = None /\ preempt' = FALSE
                           /\ qwait' = qwait
                           /\ UNCHANGED <<ring, st, pc, cur, tick, fresh, ran, pidle, pend, wp, midle>>
                      ELSE \* a request with nothing behind: a new slice
                           LET inh == ~preempt \/ Mutant = "PreemptKeepsNext"
                           IN /\ rnext' = None /\ preempt' = FALSE
                              /\ UNCHANGED <<glob, ring, pidle, pend, wp, midle>>
                              /\ Execute(m, rnext, inh) /\ Waited(~inh)
             ELSE IF ring # <<>> \/ Program = "local"
               THEN /\ ring' = IF Program = "local" THEN ring ELSE Tail(ring)
                    /\ preempt' = FALSE
                    /\ UNCHANGED <<glob, rnext, pidle, pend, wp, midle>>
                    /\ Execute(m, IF Program = "local" THEN "L" ELSE Head(ring), FALSE)
                    /\ Waited(TRUE)
             ELSE IF glob # <<>>                    \* not a localGet: the request stays
               THEN /\ glob' = <<>> /\ ring' = Tail(glob)
                    /\ UNCHANGED preempt
                    /\ Execute(m, Head(glob), FALSE) /\ Waited(TRUE)
                    /\ UNCHANGED <<rnext, pidle, pend, wp, midle>>
             ELSE \* nothing: releasep, pidleput, stopm
                  /\ st' = Own(None, "idle") /\ pidle' = TRUE
                  /\ pc' = [pc EXCEPT ![m] = "park"] /\ midle' = midle \cup {m}
                  /\ wp' = [wp EXCEPT ![m] = FALSE]
                  /\ UNCHANGED <<glob, rnext, ring, pend, tick, fresh, preempt, cur, ran, qwait>>

(***************************************************************************)
(* The task's body. A or B spawns the other (Task.Go, spawn): CAS the      *)
(* status word pTask -> pSpawn naming this M (SpawnLock), then PutNext     *)
(* and store pTask back (SpawnPut); with the CAS failed (the P was         *)
(* retaken) the task goes to the global queue with Wakep. Q and L spawn    *)
(* nothing. Then the task returns (TaskEnd: claim, pTask -> pSched).       *)
(***************************************************************************)
SpawnLock(m) ==
    /\ pc[m] = "run"
    /\ IF cur[m] \in {"A", "B"}
         THEN IF wp[m] /\ (st = Own(m, "task") \/ Mutant = "SpawnIgnoresOwnership")
                THEN /\ st' = IF Mutant = "SpawnIgnoresOwnership" THEN st ELSE Own(m, "spawn")
                     /\ pc' = [pc EXCEPT ![m] = "put"]
                     /\ UNCHANGED <<glob, pidle, pend, midle, wp>>
                ELSE /\ glob' = Append(glob, Other(cur[m]))
                     /\ Wakep([pc EXCEPT ![m] = "end"])
         ELSE /\ pc' = [pc EXCEPT ![m] = "end"]
              /\ UNCHANGED <<glob, st, pidle, pend, midle, wp>>
    /\ UNCHANGED <<rnext, ring, tick, fresh, preempt, cur, ran>>
    /\ qwait' = qwait

SpawnPut(m) ==
    /\ pc[m] = "put"
    /\ rnext' = Other(cur[m])
    /\ ring' = IF rnext = None THEN ring ELSE Append(ring, rnext)
    /\ st' = IF Mutant = "SpawnIgnoresOwnership" THEN st ELSE Own(m, "task")
    /\ pc' = [pc EXCEPT ![m] = "end"]
    /\ UNCHANGED <<glob, pidle, pend, tick, fresh, preempt, wp, cur, midle, ran, qwait>>

\* claim: pTask -> pSched; a P retaken meanwhile is gone: exitP. The CAS
\* compares the whole word, own(w.id, pTask): ClaimIgnoresHolder compares
\* the state alone.
TaskEnd(m) ==
    /\ pc[m] = "end"
    /\ cur' = [cur EXCEPT ![m] = None]
    /\ IF st = Own(m, "task") \/ (Mutant = "ClaimIgnoresHolder" /\ st.s = "task")
         THEN /\ st' = Own(m, "sched") /\ pc' = [pc EXCEPT ![m] = "find"]
              /\ UNCHANGED wp
         ELSE /\ wp' = [wp EXCEPT ![m] = FALSE] /\ pc' = [pc EXCEPT ![m] = "exitp"]
              /\ UNCHANGED st
    /\ UNCHANGED <<glob, rnext, ring, pidle, pend, tick, fresh, preempt, midle, ran, qwait>>

\* exitP: the idle P, a waiting handoff, or park.
ExitP(m) ==
    /\ pc[m] = "exitp"
    /\ IF pidle \/ pend
         THEN /\ st' = Own(m, "sched") /\ pidle' = FALSE /\ pend' = FALSE
              /\ pc' = [pc EXCEPT ![m] = "find"] /\ wp' = [wp EXCEPT ![m] = TRUE]
              /\ UNCHANGED midle
         ELSE /\ pc' = [pc EXCEPT ![m] = "park"] /\ midle' = midle \cup {m}
              /\ UNCHANGED <<st, pidle, pend, wp>>
    /\ UNCHANGED <<glob, rnext, ring, tick, fresh, preempt, cur, ran, qwait>>

(***************************************************************************)
(* sysmon (retakeAll): note a new slice; a Slice later, with work waiting  *)
(* for the P (its queue, or the global queue: no other P is idle), ask the *)
(* holder, whatever its state, to preempt its next get (Preempt); a round  *)
(* later, with the request still up and the holder in pTask, retake the P *)
(* (CAS to pIdle, preempt request, HandoffP: work, so startm).             *)
(***************************************************************************)
WorkWaits == LocalWork \/ glob # <<>>

SysmonNote ==
    /\ fresh /\ st.s # "idle"
    /\ fresh' = FALSE
    /\ UNCHANGED <<glob, rnext, ring, st, pidle, pend, tick, preempt, pc, wp, cur, midle, ran, qwait>>

\* A round after the request: it is still up (the get that clears it
\* starts a new slice, which sysmon notes first).
Retake ==
    /\ ~fresh \/ Mutant = "RetakeNewSlice"
    /\ st.s = "task" /\ WorkWaits
    /\ preempt \/ Mutant = "NoSchedPreempt"
    /\ preempt' = TRUE
    /\ StartM(pc)
    /\ UNCHANGED <<glob, rnext, ring, pidle, tick, fresh, cur, ran, qwait>>

\* retakeAll sets the request in any state but pIdle (it notes a P in pIdle).
Preempt ==
    /\ Mutant # "NoSchedPreempt"
    /\ ~fresh /\ st.s # "idle" /\ WorkWaits /\ ~preempt
    /\ preempt' = TRUE
    /\ UNCHANGED <<glob, rnext, ring, st, pidle, pend, tick, fresh, pc, wp, cur, midle, ran, qwait>>

Sysmon == SysmonNote \/ Retake \/ Preempt

MStep(m) == FindRunnable(m) \/ SpawnLock(m) \/ SpawnPut(m) \/ TaskEnd(m) \/ ExitP(m)

Next == Sysmon \/ \E m \in Ms : MStep(m)

\* sysmon's fairness, which the M's yield every 64 tasks buys it (NoYield:
\* none). sysmon polls every round, but with as many Go Ps as Ms it runs
\* only when an M yields, between tasks: its polls may find the P in pSched
\* only, infinitely often (a yield every 64 tasks) but never continuously
\* (a ping-pong passes through pTask and pSpawn in between). Strong
\* fairness on Preempt is that reading: a request enabled at infinitely
\* many polls is made. A retake needs the holder in pTask, which such polls
\* may never see, so Retake is only weakly fair: it comes when a task holds
\* the P for good (a hog), never by luck in a ping-pong's pTask window.
SysmonFair ==
    IF Mutant = "NoYield" THEN TRUE
    ELSE WF_vars(SysmonNote) /\ WF_vars(Retake) /\ SF_vars(Preempt)

\* A handoff needs no MsSuffice here: an M that parks takes it (ExitP).
Spec ==
    /\ Init /\ [][Next]_vars
    /\ \A m \in Ms : WF_vars(MStep(m))
    /\ SysmonFair

---------------------------------------------------------------------------
TypeOK ==
    /\ glob \in Seq({"Q", "A", "B"}) /\ ring \in Seq({"A", "B"})
    /\ rnext \in {None, "A", "B"}
    /\ st \in [s : {"idle", "sched", "task", "spawn"}, m : Ms \cup {None}]
    /\ pidle \in BOOLEAN /\ pend \in BOOLEAN /\ tick \in 0..(TickMod - 1)
    /\ fresh \in BOOLEAN /\ preempt \in BOOLEAN
    /\ pc \in [Ms -> MPCs] /\ wp \in [Ms -> BOOLEAN]
    /\ cur \in [Ms -> {None, "Q", "A", "B", "L"}]
    /\ midle \subseteq Ms /\ ran \in BOOLEAN /\ qwait \in 0..(Fair + 1)

\* Only the holder touches the P's queue: an M in findRunnable holds the P
\* in pSched, and a spawn puts into it only holding pSpawn; both name the M.
\* A P in pIdle is idle or in a handoff, and only then.
OnlyHolderTouchesQueue ==
    /\ \A m \in Ms : pc[m] = "find" => st = Own(m, "sched") /\ wp[m]
    /\ \A m \in Ms : pc[m] = "put" => st = Own(m, "spawn")
    /\ (st.s = "idle") <=> (pidle \/ pend)

\* A global task waits fewer than Fair slices of a busy P (the doc's "61
\* ticks"), unless global tasks were queued before it (none here).
GlobalWithinFair == qwait < Fair

\* OwnershipThroughSched: the P passes from one M to another only through
\* the Sched's side: an M gains the P only as a parked M that startm hands
\* it to (a retake's HandoffP, Wakep) or in exitP (the idle P, a waiting
\* handoff); never by its own CAS from a word that names another M. It
\* mirrors claim (executor/sched.go: the CAS from own(w.id, pTask), which
\* fails once sysmon retook the P, whoever holds it since) and takeP, the
\* only way out of pIdle.
OwnershipThroughSched ==
    [][\A m \in Ms : st'.m = m /\ st.m # m => pc[m] \in {"park", "exitp"}]_vars

\* RetakeOnlyOverrun: the P leaves a running task for a handoff (to a
\* parked M, or a handoff waiting for one) only once sysmon has noted the
\* slice a round before: a slice that has just started is never retaken.
\* It mirrors retakeAll (executor/sysmon.go: a new schedtick is only noted,
\* seenTick and seenWhen; the retake needs the same tick a Slice later).
RetakeOnlyOverrun ==
    [][st.s = "task" /\ st'.m # st.m /\ (st'.s = "idle" \/ pc[st'.m] = "park")
         => ~fresh]_vars

\* Liveness: the queued task Q runs, while A and B ping-pong through
\* runnext forever (PingPongQueuedRuns), and while the P's ring never
\* empties (LocalForeverGlobalRuns). One formula, named per program.
PingPongQueuedRuns == <>ran
LocalForeverGlobalRuns == <>ran
=============================================================================
