------------------------------ MODULE ParkReady ------------------------------
(***************************************************************************)
(* The executor's gopark/goready (issue 23, executor/park.go): a task that  *)
(* must wait parks its worker (the runtime's g) and hands its P on; the    *)
(* task that wakes it (Ready) puts the worker's resume token in its own    *)
(* P's runnext, or, from outside the executor, in the global queue; an M   *)
(* that gets the token hands its P to the worker and wakes it.             *)
(*                                                                         *)
(* Each worker has a park word <<seq, st>>, st in {Running, Parking,       *)
(* Waiting, Runnable} (casgstatus's _Grunning, _Gwaiting, _Grunnable;      *)
(* Parking is the window between "decided to park and published its Waker" *)
(* and "committed", gopark's unlockf window):                              *)
(*   Waker    Running -> <<seq+1, Parking>>; the Waker(seq) is published   *)
(*            on a wait structure (here: the set wakers)                   *)
(*   Park     claim (pTask -> pSched; retaken: hold none), detach the P    *)
(*            and M from the worker's fields, CAS Parking -> Waiting       *)
(*            (failed: readied early, re-attach and go on Running), hand  *)
(*            the P on (the token its queue holds next: direct switch;    *)
(*            else a spare M's schedule loop), sleep                       *)
(*   Ready    CAS Parking -> Runnable (the parker will see it), else CAS   *)
(*            Waiting -> Runnable and queue the token (runnext of the      *)
(*            readier's P, the displaced one to the ring's tail; without a *)
(*            P, the global queue and Wakep); anything else: a double      *)
(*            ready (Go panics). Go's claim is a load and a CAS from the   *)
(*            state loaded, retried when the commit moved it: the same    *)
(*            outcomes as the two CASes (only the commit can move Parking, *)
(*            and nobody but this Ready moves Waiting).                    *)
(*   Resume   an M with a token writes the worker's fields (its P and M),  *)
(*            hands it the P (pSched) and wakes it; the M is then a spare  *)
(*            without a P; the woken worker stores Running and runs on     *)
(*            with the P (startSlice: pTask)                               *)
(*                                                                         *)
(* Scaled and merged: 2 Ps; the Ms that run a P's schedule loop (spares:   *)
(* the worker whose task ended, or an idle M that handoffp or Wakep        *)
(* starts) are anonymous, one flag per P (an idle M is always at hand, as  *)
(* newm makes one); a spare's look at its P's runnext, ring and the global *)
(* queue and what it does with the result (a resume, or the P to the idle  *)
(* list) is one step, and an outside put is one step with its Wakep        *)
(* (Spinning.tla checks the drop-and-recheck that makes that safe); the M  *)
(* field moves with the P in every write, so only the P field is kept;    *)
(* sysmon's retake (the CAS pTask -> pIdle and handoffp) is one step;      *)
(* there is no stealing (Steal.tla) and no plain tasks in the queues but  *)
(* the "start" of a worker's first task in the long scenario.              *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Scenario,   \* "small": 2 workers; "long": 3 workers, runnext displaced
    MaxRetake,  \* the most P retakes sysmon makes
    Mutant      \* "none" is the real protocol; any other name breaks one step

\* The broken variants (the Go mutations of executor/park.go share the
\* names of the first four):
\*   ParkChecksAfterPublish  the commit CAS is a plain store of Waiting,
\*                           after the P is handed on
\*   ReadyNoCAS              Ready stores Runnable and queues a token
\*                           without looking at the state
\*   HandOnBeforeDetach      the parker commits and hands its P on before
\*                           it detaches its fields
\*   ReadyEarlyQueuesToken   a Ready that finds Parking also queues a token
\*   ResumerKeepsP           (spec only) the M that resumes a worker goes on
\*                           running its P's schedule loop
\*   EarlyReadyDropsP        (spec only) a park readied early goes on
\*                           Running without re-attaching its P
Mutants == {"none", "ParkChecksAfterPublish", "ReadyNoCAS",
            "HandOnBeforeDetach", "ReadyEarlyQueuesToken", "ResumerKeepsP",
            "EarlyReadyDropsP"}

ASSUME /\ Scenario \in {"small", "long"}
       /\ MaxRetake \in Nat
       /\ Mutant \in Mutants

Ps == {1, 2}
NW == IF Scenario = "small" THEN 2 ELSE 3
Workers == 1..NW
\* Each worker's task: "park" (Waker, then Park) and "ready" (Ready one
\* published Waker, if there is one; with none the op does nothing).
Prog(w) ==
    IF Scenario = "small"
      THEN CASE w = 1 -> <<"park", "park">>
             [] w = 2 -> <<"ready", "park", "ready">>
      ELSE CASE w = 1 -> <<"park">>
             [] w = 2 -> <<"park">>
             [] w = 3 -> <<"ready", "ready", "park">>
MaxSeq == 2
Seqs == 1..MaxSeq
Tok(w, s) == <<w, s>>
Toks == Workers \X Seqs
\* A queue item: a resume token, or (long scenario) the start of worker w's
\* task, <<w, 0>>.
Items == Workers \X (0..MaxSeq)
None == <<0, 0>>

\* The P's status word: <<"task", w>> (w runs its task: sysmon may retake),
\* <<"sched", w>> (w uses the P from scheduler code; w = 0: a spare M),
\* <<"idle", 0>>.
Task(w) == <<"task", w>>
Sched(w) == <<"sched", w>>
Idle == <<"idle", 0>>

VARIABLES
    pc,        \* pc[w]: where worker w is
    ip,        \* ip[w]: the op of Prog(w) it is at
    word,      \* word[w]: the park word <<seq, st>>
    wp,        \* wp[w]: the worker's P field (0: none)
    lp,        \* lp[w]: Park's local copy of the detached P
    note,      \* note[w]: the worker's note is woken
    ps,        \* ps[p]: P p's status word
    spare,     \* spare[p]: a spare M runs P p's schedule loop
    rn,        \* rn[p]: P p's runnext (None: empty)
    ring,      \* ring[p]: P p's ring
    glob,      \* the global queue
    wakers,    \* the published Wakers not yet readied
    rtok,      \* rtok[w]: the Waker worker w's Ready holds between its CASes
    opc,       \* the outside readier: "idle" or "r2"
    otok,      \* the Waker it holds between its CASes
    retakes,   \* retakes made
    panicked,  \* a Ready found a state that is not its park's (Go panics)
    \* history, for the properties only:
    nres,      \* nres[w][s]: times park s of w was resumed (a failed commit counts)
    committed, \* the current park of w has committed (CAS to Waiting)
    detached,  \* ... has detached its fields
    written,   \* ... has had its fields written by a resumer
    hand       \* hand[w]: the P w holds between its claim and its handon

vars == <<pc, ip, word, wp, lp, note, ps, spare, rn, ring, glob, wakers, rtok,
          opc, otok, retakes, panicked, nres, committed, detached, written, hand>>

\* Worker places: "start" (long: its task is queued, not started), "run"
\* (its task runs, at op ip), the park steps "claim", "detach", "commit",
\* "handon", "sleep" (in the order ParkOrder), "r2" (its Ready between its
\* CASes), "done".
PCs == {"start", "run", "claim", "detach", "commit", "handon", "sleep", "r2", "done"}

\* The park's steps after claim, in the real order and in the mutants that
\* reorder them.
ParkOrder ==
    CASE Mutant = "HandOnBeforeDetach"     -> <<"claim", "commit", "handon", "detach", "sleep">>
      [] Mutant = "ParkChecksAfterPublish" -> <<"claim", "detach", "handon", "commit", "sleep">>
      [] OTHER                             -> <<"claim", "detach", "commit", "handon", "sleep">>
NextPc(x) == ParkOrder[(CHOOSE i \in 1..4 : ParkOrder[i] = x) + 1]

Init ==
    /\ pc = [w \in Workers |-> IF w <= 2 THEN "run" ELSE "start"]
    /\ ip = [w \in Workers |-> 1]
    /\ word = [w \in Workers |-> <<0, "Running">>]
    /\ wp = [w \in Workers |-> IF w <= 2 THEN w ELSE 0]
    /\ lp = [w \in Workers |-> 0]
    /\ note = [w \in Workers |-> FALSE]
    /\ ps = [p \in Ps |-> Task(p)]
    /\ spare = [p \in Ps |-> FALSE]
    /\ rn = [p \in Ps |-> None]
    /\ ring = [p \in Ps |-> <<>>]
    /\ glob = IF NW = 3 THEN <<<<3, 0>>>> ELSE <<>>
    /\ wakers = {} /\ rtok = [w \in Workers |-> None]
    /\ opc = "idle" /\ otok = None
    /\ retakes = 0 /\ panicked = FALSE
    /\ nres = [w \in Workers |-> [s \in Seqs |-> 0]]
    /\ committed = [w \in Workers |-> FALSE]
    /\ detached = [w \in Workers |-> FALSE]
    /\ written = [w \in Workers |-> FALSE]
    /\ hand = [w \in Workers |-> 0]

Op(w) == Prog(w)[ip[w]]
SeqOf(w) == word[w][1]
St(w) == word[w][2]
Holding(w) == wp[w] # 0 /\ ps[wp[w]] = Task(w)   \* w's task holds its P (pTask)

(***************************************************************************)
(* The queues. Put(x, t): the token t into the runnext of x's P (x holds   *)
(* it in pTask: the put claims it, runqput(pp, gp, next=true)), the        *)
(* displaced token to the ring's tail; x without a P (retaken: its claim   *)
(* fails, w.p = nil; or x = 0, an outside readier): the global queue, and  *)
(* Wakep gives an idle P to a spare M.                                     *)
(***************************************************************************)
Wakep ==
    IF \E p \in Ps : ps[p] = Idle
      THEN LET p == CHOOSE p \in Ps : ps[p] = Idle
           IN /\ ps' = [ps EXCEPT ![p] = Sched(0)] /\ spare' = [spare EXCEPT ![p] = TRUE]
      ELSE UNCHANGED <<ps, spare>>

PutTok(x, t) ==
    IF x # 0 /\ Holding(x)
      THEN LET p == wp[x] IN
           /\ rn' = [rn EXCEPT ![p] = t]
           /\ ring' = IF rn[p] # None THEN [ring EXCEPT ![p] = Append(@, rn[p])] ELSE ring
           /\ UNCHANGED <<glob, ps, spare, wp>>
      ELSE /\ glob' = Append(glob, t) /\ Wakep
           /\ wp' = IF x # 0 THEN [wp EXCEPT ![x] = 0] ELSE wp
           /\ UNCHANGED <<rn, ring>>

(***************************************************************************)
(* Resume: the M holding P p (a spare, or a parker's direct switch) gives  *)
(* it to the token's worker v: v's fields written, pSched in v's name, the *)
(* note woken. The M then holds no P.                                      *)
(***************************************************************************)
ResumeTo(p, t) ==
    LET v == t[1] IN
    /\ wp' = [wp EXCEPT ![v] = p]
    /\ ps' = [ps EXCEPT ![p] = Sched(v)]
    /\ note' = [note EXCEPT ![v] = TRUE]
    /\ written' = [written EXCEPT ![v] = TRUE]
    /\ nres' = [nres EXCEPT ![v][t[2]] = @ + 1]

\* The start of worker v's first task (long): a spare M runs it, as v.
StartTo(p, t) ==
    LET v == t[1] IN
    /\ wp' = [wp EXCEPT ![v] = p]
    /\ ps' = [ps EXCEPT ![p] = Task(v)]
    /\ pc' = [pc EXCEPT ![v] = "run"]
    /\ UNCHANGED <<note, written, nres>>

(***************************************************************************)
(* A spare M's schedule loop on P p: runnext, the ring, the global queue:  *)
(* a token is resumed (the M then has no P), a start runs; nothing: the P *)
(* goes idle. The mutant ResumerKeepsP goes on with the P after a resume. *)
(***************************************************************************)
SpareFind(p) ==
    /\ spare[p]
    /\ IF rn[p] # None \/ ring[p] # <<>> \/ glob # <<>>
         THEN LET t == IF rn[p] # None THEN rn[p]
                       ELSE IF ring[p] # <<>> THEN Head(ring[p]) ELSE Head(glob)
              IN /\ rn' = IF rn[p] # None THEN [rn EXCEPT ![p] = None] ELSE rn
                 /\ ring' = IF rn[p] = None /\ ring[p] # <<>> THEN [ring EXCEPT ![p] = Tail(@)] ELSE ring
                 /\ glob' = IF rn[p] = None /\ ring[p] = <<>> THEN Tail(glob) ELSE glob
                 /\ IF t[2] = 0
                      THEN StartTo(p, t) /\ spare' = [spare EXCEPT ![p] = FALSE]
                      ELSE /\ ResumeTo(p, t) /\ UNCHANGED pc
                           /\ spare' = IF Mutant = "ResumerKeepsP" THEN spare
                                       ELSE [spare EXCEPT ![p] = FALSE]
         ELSE /\ ps' = [ps EXCEPT ![p] = Idle] /\ spare' = [spare EXCEPT ![p] = FALSE]
              /\ UNCHANGED <<rn, ring, glob, wp, note, written, nres, pc>>
    /\ UNCHANGED <<ip, word, lp, wakers, rtok, opc, otok, retakes, panicked,
                   committed, detached, hand>>

(***************************************************************************)
(* sysmon's retake of a P whose task runs (pTask -> pIdle, handoffp): a    *)
(* spare M gets it. The worker's field still names it until its next      *)
(* claim fails.                                                            *)
(***************************************************************************)
Retake(p) ==
    /\ retakes < MaxRetake
    /\ ps[p][1] = "task"
    /\ ps' = [ps EXCEPT ![p] = Sched(0)] /\ spare' = [spare EXCEPT ![p] = TRUE]
    /\ retakes' = retakes + 1
    /\ UNCHANGED <<pc, ip, word, wp, lp, note, rn, ring, glob, wakers, rtok, opc,
                   otok, panicked, nres, committed, detached, written, hand>>

(***************************************************************************)
(* Worker w's task.                                                        *)
(***************************************************************************)
Waker(w) ==
    /\ pc[w] = "run" /\ ip[w] <= Len(Prog(w)) /\ Op(w) = "park"
    /\ word' = [word EXCEPT ![w] = <<SeqOf(w) + 1, "Parking">>]
    /\ wakers' = wakers \cup {Tok(w, SeqOf(w) + 1)}
    /\ pc' = [pc EXCEPT ![w] = "claim"]
    /\ committed' = [committed EXCEPT ![w] = FALSE]
    /\ detached' = [detached EXCEPT ![w] = FALSE]
    /\ written' = [written EXCEPT ![w] = FALSE]
    /\ UNCHANGED <<ip, wp, lp, note, ps, spare, rn, ring, glob, rtok, opc, otok,
                   retakes, panicked, nres, hand>>

\* claim: pTask -> pSched; retaken, the worker holds none (w.p = nil).
Claim(w) ==
    /\ pc[w] = "claim"
    /\ IF Holding(w)
         THEN /\ ps' = [ps EXCEPT ![wp[w]] = Sched(w)]
              /\ hand' = [hand EXCEPT ![w] = wp[w]] /\ UNCHANGED wp
         ELSE /\ wp' = [wp EXCEPT ![w] = 0] /\ UNCHANGED <<ps, hand>>
    /\ pc' = [pc EXCEPT ![w] = NextPc("claim")]
    /\ UNCHANGED <<ip, word, lp, note, spare, rn, ring, glob, wakers, rtok, opc,
                   otok, retakes, panicked, nres, committed, detached, written>>

\* detach: the P (and M) leave the worker's fields for Park's local.
Detach(w) ==
    /\ pc[w] = "detach"
    /\ lp' = [lp EXCEPT ![w] = IF Mutant = "HandOnBeforeDetach" THEN 0 ELSE wp[w]]
    /\ wp' = [wp EXCEPT ![w] = 0]
    /\ detached' = [detached EXCEPT ![w] = TRUE]
    /\ pc' = [pc EXCEPT ![w] = NextPc("detach")]
    /\ UNCHANGED <<ip, word, note, ps, spare, rn, ring, glob, wakers, rtok, opc,
                   otok, retakes, panicked, nres, committed, written, hand>>

\* The P Park holds: in its local once detached (in HandOnBeforeDetach,
\* still in the field).
ParkP(w) == IF Mutant = "HandOnBeforeDetach" THEN wp[w] ELSE lp[w]

\* commit: CAS <<seq, Parking>> -> <<seq, Waiting>>. Failed (Runnable: a
\* Ready came first, and will queue nothing), the worker re-attaches its P
\* (pTask again) and goes on Running: this park is over. The mutant
\* ParkChecksAfterPublish stores Waiting instead, whatever the state.
Commit(w) ==
    /\ pc[w] = "commit"
    /\ IF Mutant = "ParkChecksAfterPublish" \/ St(w) = "Parking"
         THEN /\ word' = [word EXCEPT ![w] = <<SeqOf(w), "Waiting">>]
              /\ committed' = [committed EXCEPT ![w] = TRUE]
              /\ pc' = [pc EXCEPT ![w] = NextPc("commit")]
              /\ UNCHANGED <<ip, wp, lp, ps, nres, hand>>
         ELSE LET p == ParkP(w) IN
              /\ word' = [word EXCEPT ![w] = <<SeqOf(w), "Running">>]
              /\ IF Mutant = "EarlyReadyDropsP"
                   THEN /\ wp' = [wp EXCEPT ![w] = 0] /\ UNCHANGED ps
                   ELSE /\ wp' = [wp EXCEPT ![w] = p]
                        /\ ps' = IF p # 0 THEN [ps EXCEPT ![p] = Task(w)] ELSE ps
              /\ lp' = [lp EXCEPT ![w] = 0] /\ hand' = [hand EXCEPT ![w] = 0]
              /\ nres' = [nres EXCEPT ![w][SeqOf(w)] = @ + 1]
              /\ pc' = [pc EXCEPT ![w] = "run"] /\ ip' = [ip EXCEPT ![w] = @ + 1]
              /\ UNCHANGED committed
    /\ UNCHANGED <<note, spare, rn, ring, glob, wakers, rtok, opc, otok, retakes,
                   panicked, detached, written>>

\* handon: with a P, the token its queue holds next (runnext, then the
\* ring's head) gets it directly (the direct switch); else a spare M runs
\* its schedule loop. Without a P (retaken) there is nothing to hand on.
HandOn(w) ==
    /\ pc[w] = "handon"
    /\ LET p == ParkP(w) IN
       /\ IF p = 0
            THEN UNCHANGED <<ps, spare, rn, ring, wp, note, written, nres>>
          ELSE IF rn[p] # None \/ ring[p] # <<>>
            THEN LET t == IF rn[p] # None THEN rn[p] ELSE Head(ring[p]) IN
                 /\ rn' = IF rn[p] # None THEN [rn EXCEPT ![p] = None] ELSE rn
                 /\ ring' = IF rn[p] = None THEN [ring EXCEPT ![p] = Tail(@)] ELSE ring
                 /\ ResumeTo(p, t) /\ UNCHANGED spare
            ELSE /\ ps' = [ps EXCEPT ![p] = Sched(0)] /\ spare' = [spare EXCEPT ![p] = TRUE]
                 /\ UNCHANGED <<rn, ring, wp, note, written, nres>>
       /\ lp' = [lp EXCEPT ![w] = 0] /\ hand' = [hand EXCEPT ![w] = 0]
    /\ pc' = [pc EXCEPT ![w] = NextPc("handon")]
    /\ UNCHANGED <<ip, word, glob, wakers, rtok, opc, otok, retakes, panicked,
                   committed, detached>>

\* The note woken: the worker stores Running and runs on with the P a
\* resumer gave it (startSlice: pTask).
Wake(w) ==
    /\ pc[w] = "sleep" /\ note[w]
    /\ note' = [note EXCEPT ![w] = FALSE]
    /\ word' = [word EXCEPT ![w] = <<SeqOf(w), "Running">>]
    /\ ps' = IF wp[w] # 0 THEN [ps EXCEPT ![wp[w]] = Task(w)] ELSE ps
    /\ pc' = [pc EXCEPT ![w] = "run"] /\ ip' = [ip EXCEPT ![w] = @ + 1]
    /\ written' = [written EXCEPT ![w] = FALSE]
    /\ UNCHANGED <<wp, lp, spare, rn, ring, glob, wakers, rtok, opc, otok, retakes,
                   panicked, nres, committed, detached, hand>>

(***************************************************************************)
(* Ready(seq) of the Waker t, by worker x's task (x = 0: an outside        *)
(* goroutine). R1: CAS Parking -> Runnable; done. Else R2: CAS Waiting ->  *)
(* Runnable and put the token; else a double ready (panic).                *)
(***************************************************************************)
\* The first CAS; what it leaves for R2 (None: done).
R1(x, t) ==
    LET v == t[1] IN
    IF Mutant = "ReadyNoCAS"
      THEN /\ word' = [word EXCEPT ![v] = <<t[2], "Runnable">>] /\ PutTok(x, t)
    ELSE IF word[v] = <<t[2], "Parking">>
      THEN /\ word' = [word EXCEPT ![v] = <<t[2], "Runnable">>]
           /\ IF Mutant = "ReadyEarlyQueuesToken" THEN PutTok(x, t)
              ELSE UNCHANGED <<rn, ring, glob, ps, spare, wp>>
    ELSE UNCHANGED <<word, rn, ring, glob, ps, spare, wp>>

R1Done(t) == Mutant = "ReadyNoCAS" \/ word[t[1]] = <<t[2], "Parking">>

R2(x, t) ==
    LET v == t[1] IN
    IF word[v] = <<t[2], "Waiting">>
      THEN /\ word' = [word EXCEPT ![v] = <<t[2], "Runnable">>] /\ PutTok(x, t)
           /\ UNCHANGED panicked
      ELSE /\ panicked' = TRUE /\ UNCHANGED <<word, rn, ring, glob, ps, spare, wp>>

\* A "ready" op: a published Waker (none: the op does nothing).
ReadyOp(w) ==
    /\ pc[w] = "run" /\ ip[w] <= Len(Prog(w)) /\ Op(w) = "ready"
    /\ IF wakers = {}
         THEN /\ ip' = [ip EXCEPT ![w] = @ + 1]
              /\ UNCHANGED <<word, rn, ring, glob, ps, spare, wp, wakers, rtok, pc>>
         ELSE \E t \in wakers :
              /\ wakers' = wakers \ {t}
              /\ R1(w, t)
              /\ IF R1Done(t)
                   THEN ip' = [ip EXCEPT ![w] = @ + 1] /\ UNCHANGED <<pc, rtok>>
                   ELSE /\ pc' = [pc EXCEPT ![w] = "r2"] /\ rtok' = [rtok EXCEPT ![w] = t]
                        /\ UNCHANGED ip
    /\ UNCHANGED <<lp, note, opc, otok, retakes, panicked, nres, committed,
                   detached, written, hand>>

Ready2(w) ==
    /\ pc[w] = "r2"
    /\ R2(w, rtok[w])
    /\ rtok' = [rtok EXCEPT ![w] = None]
    /\ pc' = [pc EXCEPT ![w] = "run"] /\ ip' = [ip EXCEPT ![w] = @ + 1]
    /\ UNCHANGED <<lp, note, wakers, opc, otok, retakes, nres, committed, detached,
                   written, hand>>

\* The task ends: with its P (pTask), the worker goes on as the P's
\* spare M (its schedule loop); without one (retaken), it has none to give.
End(w) ==
    /\ pc[w] = "run" /\ ip[w] > Len(Prog(w))
    /\ IF Holding(w)
         THEN /\ ps' = [ps EXCEPT ![wp[w]] = Sched(0)]
              /\ spare' = [spare EXCEPT ![wp[w]] = TRUE]
         ELSE UNCHANGED <<ps, spare>>
    /\ wp' = [wp EXCEPT ![w] = 0]
    /\ pc' = [pc EXCEPT ![w] = "done"]
    /\ UNCHANGED <<ip, word, lp, note, rn, ring, glob, wakers, rtok, opc, otok,
                   retakes, panicked, nres, committed, detached, written, hand>>

\* An outside goroutine readies any published Waker (the global queue).
OReady ==
    /\ opc = "idle" /\ wakers # {}
    /\ \E t \in wakers :
       /\ wakers' = wakers \ {t}
       /\ R1(0, t)
       /\ IF R1Done(t) THEN UNCHANGED <<opc, otok>>
          ELSE opc' = "r2" /\ otok' = t
    /\ UNCHANGED <<pc, ip, lp, note, rtok, retakes, panicked, nres, committed,
                   detached, written, hand>>

OReady2 ==
    /\ opc = "r2"
    /\ R2(0, otok)
    /\ opc' = "idle" /\ otok' = None
    /\ UNCHANGED <<pc, ip, lp, note, wakers, rtok, retakes, nres, committed,
                   detached, written, hand>>

WStep(w) ==
    \/ Waker(w) \/ Claim(w) \/ Detach(w) \/ Commit(w) \/ HandOn(w) \/ Wake(w)
    \/ ReadyOp(w) \/ Ready2(w) \/ End(w)

OStep == OReady \/ OReady2

\* Every task has ended: the state stutters. With it in Next, TLC's
\* deadlock check is a termination check: every step but this one moves a
\* task, consumes a Waker or a token, or gives a spare M's P to the idle
\* list (a spare M is made only by a put, a park, a task's end or a
\* retake), so the state graph has no cycle, every behaviour ends, and a
\* state where it ends with a task not done (a sleeper nobody will wake) is
\* a deadlock.
Terminated == (\A w \in Workers : pc[w] = "done") /\ UNCHANGED vars

Next ==
    \/ \E w \in Workers : WStep(w)
    \/ \E p \in Ps : SpareFind(p) \/ Retake(p)
    \/ OStep
    \/ Terminated

\* Every worker, every P's spare M and the outside readier are weakly fair;
\* sysmon's retakes are not needed for progress.
Spec == Init /\ [][Next]_vars
        /\ \A w \in Workers : WF_vars(WStep(w))
        /\ \A p \in Ps : WF_vars(SpareFind(p))
        /\ WF_vars(OStep)

---------------------------------------------------------------------------
TypeOK ==
    /\ pc \in [Workers -> PCs] /\ ip \in [Workers -> 1..4]
    /\ word \in [Workers -> (0..MaxSeq) \X {"Running", "Parking", "Waiting", "Runnable"}]
    /\ wp \in [Workers -> {0} \cup Ps] /\ lp \in [Workers -> {0} \cup Ps]
    /\ note \in [Workers -> BOOLEAN]
    /\ ps \in [Ps -> ({"task", "sched"} \X Workers) \cup {Sched(0), Idle}]
    /\ spare \in [Ps -> BOOLEAN] /\ rn \in [Ps -> Items \cup {None}]
    /\ ring \in [Ps -> Seq(Items)] /\ glob \in Seq(Items)
    /\ wakers \subseteq Toks /\ rtok \in [Workers -> Toks \cup {None}]
    /\ opc \in {"idle", "r2"} /\ otok \in Toks \cup {None}
    /\ retakes \in 0..MaxRetake /\ panicked \in BOOLEAN

\* Where the tokens are.
Count(q, t) == Cardinality({i \in DOMAIN q : q[i] = t})
Queued(t) == Count(glob, t) + Cardinality({p \in Ps : rn[p] = t})
             + Count(ring[1], t) + Count(ring[2], t)

\* NoLostWakeup: a worker whose park has committed and that has not woken
\* has its wakeup somewhere: its Waker published (Waiting), a Ready between
\* its CASes holding it (Waiting), its token queued or its note woken
\* (Runnable). (TLC finds the sleeper of ParkChecksAfterPublish: Waiting,
\* readied, no token anywhere.)
Sleeping(w) == committed[w] /\ pc[w] \in {"detach", "handon", "sleep"}
NoLostWakeup ==
    \A w \in Workers : Sleeping(w) =>
        LET t == Tok(w, SeqOf(w)) IN
        \/ St(w) = "Waiting" /\ (t \in wakers \/ otok = t \/ \E x \in Workers : rtok[x] = t)
        \/ St(w) = "Runnable" /\ (Queued(t) > 0 \/ note[w])

\* ResumedAtMostOncePerPark: park s of w is resumed at most once, counting
\* its own going on after a failed commit, the resumes done and the tokens
\* still queued: never two tokens for one (w, s), never a token for a park
\* that went on.
ResumedAtMostOncePerPark ==
    \A w \in Workers, s \in Seqs : nres[w][s] + Queued(Tok(w, s)) <= 1

\* NeverResumedBeforeParked: a worker's P and M fields are its own until it
\* detaches them, nobody's from then until a resumer writes them, and a
\* resumer writes them only after the park's commit: a resumer's write
\* never races the parker's.
NeverResumedBeforeParked ==
    \A w \in Workers : written[w] => committed[w] /\ detached[w]

\* Who uses P p without a CAS on its status word: a worker whose task runs
\* (pTask in its name; a task that lost its P to a retake keeps a stale
\* field and finds out at its next claim), a parker between its claim and
\* its handon, a parker or sleeper whose fields a resumer wrote (it runs on
\* with that P once woken), a spare M.
Uses(w, p) ==
    \/ pc[w] \in {"run", "claim", "r2"} /\ ps[p] = Task(w)
    \/ pc[w] \in {"detach", "commit", "handon"} /\ hand[w] = p
    \/ pc[w] \in {"detach", "commit", "handon", "sleep"} /\ written[w] /\ wp[w] = p
Users(p) == Cardinality({w \in Workers : Uses(w, p)}) + (IF spare[p] THEN 1 ELSE 0)

\* PExclusive: a P is used by at most one worker or spare M, none while it
\* is idle; a sleeper not yet resumed uses none.
PExclusive ==
    /\ \A p \in Ps : Users(p) <= 1 /\ (ps[p] = Idle => Users(p) = 0)
    /\ \A w \in Workers : pc[w] = "sleep" /\ ~written[w] => \A p \in Ps : ~Uses(w, p)

\* NoPLost: every P is used by a worker or a spare M, or idle.
NoPLost == \A p \in Ps : Users(p) >= 1 \/ ps[p] = Idle

\* NoDoubleReady: a Ready always finds its own park Parking or Waiting.
NoDoubleReady == ~panicked

\* Liveness: every park is resumed (the sleeper wakes and runs), and every
\* task ends.
ParkedResumes == \A w \in Workers : pc[w] = "sleep" ~> pc[w] = "run"
TasksEnd == <>(\A w \in Workers : pc[w] = "done")
=============================================================================
