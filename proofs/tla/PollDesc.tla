------------------------------- MODULE PollDesc -------------------------------
(***************************************************************************)
(* netpoll.Desc, netpoll.Table and netpoll.Breaker: the descriptor side of *)
(* the runtime's network poller (runtime/netpoll.go: netpollblock,         *)
(* netpollblockcommit, netpollunblock, netpollready, poll_runtime_pollWait, *)
(* poll_runtime_pollUnblock, netpolldeadlineimpl, pollSetDeadline, the     *)
(* fdseq tag, netpollBreak and netpollWakeSig).                             *)
(*                                                                         *)
(* Part "desc", one descriptor D2 with its read direction:                *)
(*   w   the waiter: Wait in a loop (a reader after each EAGAIN) until    *)
(*       Wait returns an error                                             *)
(*   p   the poller: two events from the kernel: a stale one carrying    *)
(*       the tag of D1, the descriptor that held D2's table slot before   *)
(*       it (closed and freed), then a fresh one for D2                   *)
(*   o   the owner: frees D1, opens D2 in the slot D1 had (a new          *)
(*       generation), and at last closes D2                               *)
(*   t   D2's deadline timer, armed for generation 1: Expire(seq 1)       *)
(*   r   a SetDeadline(NoDeadline) that moves the deadline on: the timer  *)
(*       is stale from then on                                            *)
(* One direction is enough: Read and Write have a semaphore and a slot    *)
(* each and share only the lock and the info word, and Close and the      *)
(* deadlines run the same unblock on each; the runtime's rg and wg are the *)
(* same code on two words.                                                 *)
(*                                                                         *)
(* Part "break", the Breaker: a poller bp that looks for work, blocks in  *)
(* its wait until the eventfd is readable, reads it and calls Drained; and *)
(* Wakers wakers, each publishing one unit of work and then calling Break *)
(* (the eventfd write when Break wins the flag).                           *)
(*                                                                         *)
(* Grain: each atomic of the Go code is a step, and so is each stretch    *)
(* under D2's lock that no thread outside the lock can tell apart (the     *)
(* lock, the fields and the info word's publish are one step: the waiter  *)
(* reads only the info word and the semaphore). Netpollunblock's CAS loop  *)
(* is one step: it retries from the value it finds, so it is an atomic    *)
(* update of the semaphore.                                                *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Parts,    \* a subset of {"desc", "break"}: the threads that run
    Wakers,   \* the break part's wakers
    Mutant    \* "none" is the real algorithm

\* The broken variants, each named as the netpoll mutation
\* (netpoll/mutation.go) it models:
\*   CommitNoCAS              Commit stores Parked instead of a CAS from Wait
\*   EventLostOnWait          an event that finds Wait moves it to Nil
\*   ParkSkipsErrRecheck      the waiter commits without rechecking the
\*                            info word after publishing Wait
\*   CloseWakesBeforePublish  Close unblocks before it publishes closing
\*   ExpireIgnoresSeq         Expire fires for a generation moved on since
\*   LookupIgnoresGen         Lookup returns the slot's Desc without
\*                            comparing its tag
\*   DrainedNeverRearms       Drained leaves the break flag set
\*   BreakAlwaysSkips         Break never writes
\*   UnblockNoCAS             netpollunblock loads the semaphore in one step
\*                            and stores what that load decided in the next
Mutants == {"none", "CommitNoCAS", "EventLostOnWait", "ParkSkipsErrRecheck", "CloseWakesBeforePublish",
            "ExpireIgnoresSeq", "LookupIgnoresGen", "DrainedNeverRearms", "BreakAlwaysSkips", "UnblockNoCAS"}

ASSUME Parts \subseteq {"desc", "break"} /\ Wakers \in 0..2 /\ Mutant \in Mutants

None      == "none"
DescThreads == {"w", "p", "o", "t", "r"}
WakerIds  == {"k1", "k2"} \cap (IF Wakers = 0 THEN {} ELSE IF Wakers = 1 THEN {"k1"} ELSE {"k1", "k2"})
Threads   == DescThreads \cup {"bp"} \cup WakerIds
Sems      == {"Nil", "Ready", "Wait", "Parked"}
Events    == {"stale", "fresh"}
GenOf(e)  == IF e = "stale" THEN 1 ELSE 2   \* the generation in the event's tag

VARIABLES
    sem,            \* D2's read semaphore (the runtime's rg)
    infoClosing,    \* the info word's closing bit
    infoExpired,    \* the info word's read-deadline bit
    closing,        \* D2's fields under its lock: closing,
    rd,             \*   the read deadline: "None", "Pending" or "Expired",
    seq,            \*   and its generation (rseq)
    lock,           \* the thread holding D2's lock, or None
    slot,           \* the table slot D1 had and D2 reuses: "d1", "d2" or None
    tag1, tag2,     \* D1's and D2's tags (their generation; 0: in no table)
    evs,            \* the events the poller has still to read
    cur,            \* the poller's event and the Desc its lookup found
    found,
    hold,           \* hold[th]: th moved Parked away and owns the W to ready
    loaded,         \* loaded[th]: the semaphore an UnblockNoCAS load read ("": none)
    pc,
    \* the break part
    sig,            \* the Breaker's flag (netpollWakeSig)
    efd,            \* the eventfd is readable
    work, taken,    \* work published by the wakers; work the poller took
    \* ghosts
    edge,           \* an event reached D2 that no Wait has consumed since
    wakes,          \* readies of the W of the waiter's current park
    corrupt,        \* the waiter's Swap found Parked
    staleHit,       \* an event with D1's tag moved D2's semaphore
    lastSet,        \* the deadline the last SetDeadline asked for
    setGen,         \* the generation that SetDeadline gave it
    firedGen        \* the generation an Expire fired for (0: none)

vars == <<sem, infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found, hold, loaded, pc,
          sig, efd, work, taken, edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen>>
descVars  == <<sem, infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found, hold,
               edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen>>
breakVars == <<sig, efd, work, taken>>

Init ==
    /\ sem = "Nil" /\ infoClosing = FALSE /\ infoExpired = FALSE
    /\ closing = FALSE /\ rd = "Pending" /\ seq = 1 /\ lock = None
    /\ slot = "d1" /\ tag1 = 1 /\ tag2 = 0
    /\ evs = Events /\ cur = "" /\ found = None
    /\ hold = [th \in DescThreads |-> FALSE]
    /\ loaded = [th \in DescThreads |-> ""]
    /\ pc = [th \in Threads |->
               IF th \in DescThreads THEN (IF "desc" \in Parts THEN "start" ELSE "done")
               ELSE IF "break" \in Parts THEN (IF th = "bp" THEN "check" ELSE "publish")
               ELSE "done"]
    /\ sig = 0 /\ efd = FALSE /\ work = 0 /\ taken = 0
    /\ edge = FALSE /\ wakes = 0 /\ corrupt = FALSE /\ staleHit = FALSE
    /\ lastSet = "Pending" /\ setGen = 1 /\ firedGen = 0

Goto(th, l) == pc' = [pc EXCEPT ![th] = l]
Err == infoClosing \/ infoExpired   \* Desc.Err(Read) # nil: closing or expired

\* netpollunblock: the semaphore's next value, and whether the W is taken.
UnblockTo(old, ioready) ==
    IF old = "Ready" \/ (old = "Nil" /\ ~ioready) THEN old
    ELSE IF ioready /\ ~(Mutant = "EventLostOnWait" /\ old = "Wait") THEN "Ready"
    ELSE "Nil"
Takes(old, ioready) == old = "Parked"

\* netpollunblock by thread th (ioready for an event), then on to next(old)
\* with the value it moved. Its CAS loop is one atomic update; under
\* UnblockNoCAS it is a load (a step of its own), then a store of what that
\* load decided, over whatever the semaphore holds by then. A no-op (Ready,
\* or Nil without ioready) stores nothing.
UnblockStep(th, ioready, nextPc(_)) ==
    IF Mutant = "UnblockNoCAS" /\ loaded[th] = ""
      THEN /\ loaded' = [loaded EXCEPT ![th] = sem]
           /\ UNCHANGED <<sem, hold, pc>>
      ELSE LET old == IF Mutant = "UnblockNoCAS" THEN loaded[th] ELSE sem IN
           /\ sem' = IF UnblockTo(old, ioready) = old THEN sem ELSE UnblockTo(old, ioready)
           /\ hold' = [hold EXCEPT ![th] = Takes(old, ioready)]
           /\ loaded' = [loaded EXCEPT ![th] = ""]
           /\ Goto(th, nextPc(old))

-----------------------------------------------------------------------------
\* The waiter, Desc.Wait(Read) in a loop: poll_runtime_pollWait and
\* netpollblock. It starts once D2 is in the table (an fd is registered
\* before anyone waits on it).

WaitCheck ==   \* Wait's first Err
    /\ pc["w"] = "start" /\ tag2 # 0
    /\ Goto("w", IF Err THEN "done" ELSE "cas")
    /\ UNCHANGED <<descVars, breakVars>>

WaitCAS ==     \* block: CAS Ready -> Nil (consumed), else CAS Nil -> Wait
    /\ pc["w"] = "cas"
    /\ CASE sem = "Ready" -> /\ sem' = "Nil" /\ edge' = FALSE /\ Goto("w", "start") /\ UNCHANGED corrupt
         [] sem = "Nil"   -> /\ sem' = "Wait" /\ Goto("w", "recheck") /\ UNCHANGED <<edge, corrupt>>
         [] OTHER         -> /\ corrupt' = TRUE /\ Goto("w", "done") /\ UNCHANGED <<sem, edge>>  \* the double-wait panic
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found, hold,
                   wakes, staleHit, lastSet, setGen, firedGen, breakVars>>

Recheck ==     \* Err again after Wait is published
    /\ pc["w"] = "recheck"
    /\ Goto("w", IF Mutant = "ParkSkipsErrRecheck" \/ ~Err THEN "commit" ELSE "swap")
    /\ UNCHANGED <<descVars, breakVars>>

Commit ==      \* the W in the slot, then netpollblockcommit's CAS Wait -> Parked
    /\ pc["w"] = "commit"
    /\ IF Mutant = "CommitNoCAS" \/ sem = "Wait"
         THEN /\ sem' = "Parked" /\ wakes' = 0 /\ Goto("w", "parked")
         ELSE /\ Goto("w", "swap") /\ UNCHANGED <<sem, wakes>>
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found, hold,
                   edge, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

Park ==        \* asleep until its W is readied
    /\ pc["w"] = "parked" /\ wakes > 0
    /\ Goto("w", "swap")
    /\ UNCHANGED <<descVars, breakVars>>

Swap ==        \* old := Swap(Nil); old = Ready is an event consumed
    /\ pc["w"] = "swap"
    /\ sem' = "Nil"
    /\ corrupt' = (corrupt \/ sem = "Parked")
    /\ IF sem = "Ready"
         THEN /\ edge' = FALSE /\ Goto("w", "start")
         ELSE /\ Goto("w", "errcheck") /\ UNCHANGED edge
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found, hold,
                   wakes, staleHit, lastSet, setGen, firedGen, breakVars>>

ErrCheck ==    \* a wake without an event: Err, else block again
    /\ pc["w"] = "errcheck"
    /\ Goto("w", IF Err THEN "done" ELSE "cas")
    /\ UNCHANGED <<descVars, breakVars>>

-----------------------------------------------------------------------------
\* The poller: for each event, Table.Lookup(tag) (the slot, then the
\* Desc's tag), then Desc.Ready (netpollunblock with ioready, then the
\* ready of the W it took). The stale event comes first (the kernel queued
\* it while D1 was registered); D2's comes only once D2 is registered.

PollRead ==
    /\ pc["p"] = "start"
    /\ IF evs = {}
         THEN /\ Goto("p", "done") /\ UNCHANGED <<evs, cur>>
         ELSE LET e == IF "stale" \in evs THEN "stale" ELSE "fresh" IN
                /\ e = "fresh" => tag2 # 0
                /\ evs' = evs \ {e} /\ cur' = e /\ Goto("p", "lookup")
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, found, hold,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

Lookup ==      \* the slot's Desc
    /\ pc["p"] = "lookup"
    /\ found' = slot
    /\ Goto("p", IF slot = None THEN "start" ELSE "tagcheck")
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, hold,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

LookupTag ==   \* the Desc's tag against the event's
    /\ pc["p"] = "tagcheck"
    /\ LET t == IF found = "d1" THEN tag1 ELSE tag2 IN
         Goto("p", IF Mutant = "LookupIgnoresGen" \/ t = GenOf(cur) THEN "unblock" ELSE "start")
    /\ UNCHANGED <<descVars, breakVars>>

Unblock ==     \* Desc.Ready: netpollunblock(ioready) on the Desc found (D1's is not kept: it is closed)
    /\ pc["p"] = "unblock"
    /\ IF found = "d2"
         THEN /\ UnblockStep("p", TRUE, LAMBDA old : IF Takes(old, TRUE) THEN "ready" ELSE "start")
              /\ edge' = TRUE
              /\ staleHit' = (staleHit \/ cur = "stale")
         ELSE /\ Goto("p", "start") /\ UNCHANGED <<sem, hold, loaded, edge, staleHit>>
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found,
                   wakes, corrupt, lastSet, setGen, firedGen, breakVars>>

\* Ready: a thread that took the W readies it (after the Desc's lock).
ReadyW(th, next) ==
    /\ hold[th]
    /\ wakes' = wakes + 1
    /\ hold' = [hold EXCEPT ![th] = FALSE]
    /\ Goto(th, next)
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found,
                   edge, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

Ready == pc["p"] = "ready" /\ ReadyW("p", "start")

-----------------------------------------------------------------------------
\* The owner: Table.Free(D1) (the slot, then D1's tag), Table.Open(D2) (its
\* tag, then the slot: one step, since no event carries D2's tag before
\* epoll_ctl, after Open), then Desc.Close(D2).

Free ==
    /\ pc["o"] = "start"
    /\ slot' = None /\ tag1' = 0
    /\ Goto("o", "open")
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, lock, tag2, evs, cur, found, hold,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

Open ==
    /\ pc["o"] = "open"
    /\ tag2' = 2 /\ slot' = "d2"
    /\ Goto("o", "close")
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, lock, tag1, evs, cur, found, hold,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

Close ==       \* lock, closing, the generations, publish (the mutant publishes later)
    /\ pc["o"] = "close" /\ lock = None
    /\ lock' = "o" /\ closing' = TRUE /\ seq' = seq + 1
    /\ IF Mutant = "CloseWakesBeforePublish"
         THEN UNCHANGED <<infoClosing, infoExpired>>
         ELSE /\ infoClosing' = TRUE /\ infoExpired' = (rd = "Expired")
    /\ Goto("o", "cunblock")
    /\ UNCHANGED <<sem, rd, slot, tag1, tag2, evs, cur, found, hold, edge, wakes, corrupt, staleHit,
                   lastSet, setGen, firedGen, breakVars>>

CloseUnblock ==
    /\ pc["o"] = "cunblock"
    /\ UnblockStep("o", FALSE, LAMBDA old : "cunlock")
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

CloseUnlock == \* (the mutant's publish, then) the unlock
    /\ pc["o"] = "cunlock"
    /\ lock' = None
    /\ infoClosing' = TRUE /\ infoExpired' = (rd = "Expired")
    /\ Goto("o", IF hold["o"] THEN "cready" ELSE "done")
    /\ UNCHANGED <<sem, closing, rd, seq, slot, tag1, tag2, evs, cur, found, hold, edge, wakes, corrupt,
                   staleHit, lastSet, setGen, firedGen, breakVars>>

CloseReady == pc["o"] = "cready" /\ ReadyW("o", "done")

-----------------------------------------------------------------------------
\* The deadline: the timer's Expire(Read, 1) (netpolldeadlineimpl) and a
\* SetDeadline(Read, NoDeadline) (poll_runtime_pollSetDeadline), each
\* under D2's lock.

Expire ==      \* lock; stale (closing, or a generation moved on): unlock; else Expired and publish
    /\ pc["t"] = "start" /\ lock = None
    /\ IF closing \/ (seq # 1 /\ Mutant # "ExpireIgnoresSeq")
         THEN /\ Goto("t", "done")
              /\ UNCHANGED <<lock, rd, infoClosing, infoExpired, firedGen>>
         ELSE /\ lock' = "t" /\ rd' = "Expired" /\ firedGen' = 1
              /\ infoClosing' = closing /\ infoExpired' = TRUE
              /\ Goto("t", "xunblock")
    /\ UNCHANGED <<sem, closing, seq, slot, tag1, tag2, evs, cur, found, hold, edge, wakes, corrupt, staleHit,
                   lastSet, setGen, breakVars>>

ExpireUnblock ==
    /\ pc["t"] = "xunblock"
    /\ UnblockStep("t", FALSE, LAMBDA old : "xunlock")
    /\ UNCHANGED <<infoClosing, infoExpired, closing, rd, seq, lock, slot, tag1, tag2, evs, cur, found,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

ExpireUnlock ==
    /\ pc["t"] = "xunlock"
    /\ lock' = None
    /\ Goto("t", IF hold["t"] THEN "xready" ELSE "done")
    /\ UNCHANGED <<sem, infoClosing, infoExpired, closing, rd, seq, slot, tag1, tag2, evs, cur, found, hold,
                   edge, wakes, corrupt, staleHit, lastSet, setGen, firedGen, breakVars>>

ExpireReady == pc["t"] = "xready" /\ ReadyW("t", "done")

SetDeadline == \* lock, NoDeadline, a new generation, publish, unlock (no waiter to wake: not Expired)
    /\ pc["r"] = "start" /\ lock = None
    /\ IF closing
         THEN UNCHANGED <<rd, seq, infoClosing, infoExpired, lastSet, setGen>>
         ELSE /\ rd' = "None" /\ seq' = seq + 1
              /\ infoClosing' = closing /\ infoExpired' = FALSE
              /\ lastSet' = "None" /\ setGen' = seq + 1
    /\ Goto("r", "done")
    /\ UNCHANGED <<sem, closing, lock, slot, tag1, tag2, evs, cur, found, hold, edge, wakes, corrupt, staleHit,
                   firedGen, breakVars>>

-----------------------------------------------------------------------------
\* The break part: netpollBreak against a poller blocked in netpoll.

PollCheck ==   \* findRunnable: take the work there is, else block in the wait
    /\ pc["bp"] = "check"
    /\ IF work > taken
         THEN /\ taken' = work /\ Goto("bp", IF work = Wakers THEN "done" ELSE "check")
         ELSE /\ Goto("bp", IF taken = Wakers THEN "done" ELSE "block") /\ UNCHANGED taken
    /\ UNCHANGED <<descVars, sig, efd, work>>

PollBlock ==   \* epoll_wait returns with the eventfd readable; read it
    /\ pc["bp"] = "block" /\ efd
    /\ efd' = FALSE
    /\ Goto("bp", "drained")
    /\ UNCHANGED <<descVars, sig, work, taken>>

Drained ==
    /\ pc["bp"] = "drained"
    /\ sig' = IF Mutant = "DrainedNeverRearms" THEN sig ELSE 0
    /\ Goto("bp", "check")
    /\ UNCHANGED <<descVars, efd, work, taken>>

Publish(k) ==  \* a waker makes its work visible (a task queued, a timer armed)
    /\ pc[k] = "publish"
    /\ work' = work + 1
    /\ Goto(k, "break")
    /\ UNCHANGED <<descVars, sig, efd, taken>>

Break(k) ==    \* CAS the flag 0 -> 1; the winner writes
    /\ pc[k] = "break"
    /\ IF Mutant # "BreakAlwaysSkips" /\ sig = 0
         THEN /\ sig' = 1 /\ Goto(k, "write")
         ELSE /\ Goto(k, "done") /\ UNCHANGED sig
    /\ UNCHANGED <<descVars, efd, work, taken>>

BreakWrite(k) ==
    /\ pc[k] = "write"
    /\ efd' = TRUE
    /\ Goto(k, "done")
    /\ UNCHANGED <<descVars, sig, work, taken>>

-----------------------------------------------------------------------------
\* Every thread has finished: stutter. A thread that can never go on (a
\* waiter parked for ever, a poller blocked on an eventfd nobody writes) is
\* a deadlock, which TLC reports.
Finished ==
    /\ \A th \in Threads : pc[th] = "done"
    /\ UNCHANGED vars

Next ==
    \/ Unblock \/ CloseUnblock \/ ExpireUnblock
    \/ /\ \/ WaitCheck \/ WaitCAS \/ Recheck \/ Commit \/ Park \/ Swap \/ ErrCheck
          \/ PollRead \/ Lookup \/ LookupTag \/ Ready
          \/ Free \/ Open \/ Close \/ CloseUnlock \/ CloseReady
          \/ Expire \/ ExpireUnlock \/ ExpireReady \/ SetDeadline
          \/ PollCheck \/ PollBlock \/ Drained
          \/ \E k \in WakerIds : Publish(k) \/ Break(k) \/ BreakWrite(k)
          \/ Finished
       /\ UNCHANGED loaded

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK ==
    /\ sem \in Sems /\ rd \in {"None", "Pending", "Expired"} /\ lock \in DescThreads \cup {None}
    /\ slot \in {"d1", "d2", None} /\ tag1 \in {0, 1} /\ tag2 \in {0, 2}
    /\ sig \in {0, 1} /\ work \in 0..Wakers /\ taken \in 0..Wakers

\* No lost wakeup: whenever D2's lock is free, a waiter parked on a
\* semaphore that still says Parked (nobody took its W) has no wake
\* condition it missed: no event reached D2 since the last one a Wait
\* consumed, and the info word says neither closing nor expired.
NoLostWakeup ==
    (pc["w"] = "parked" /\ sem = "Parked" /\ lock = None) => ~edge /\ ~infoClosing /\ ~infoExpired

\* No double resume: a park's W is readied at most once, and the waiter
\* never finds its semaphore still Parked once it runs again (Go panics).
NoDoubleResume == wakes <= 1 /\ ~corrupt

\* No stale event: an event carrying D1's tag never reaches D2, which holds
\* D1's slot now.
NoStaleEvent == ~staleHit

\* A deadline expires only for the generation SetDeadline last gave it:
\* the read deadline says Expired only if the last SetDeadline armed it
\* (Pending) and its timer, of that generation, fired.
NoStaleExpiry == rd = "Expired" => lastSet = "Pending" /\ firedGen = setGen

\* No lost break: a poller blocked in its wait, with work it has not taken
\* and the eventfd not readable, has a waker that published and has not
\* yet returned from its Break (so it is about to write).
NoLostBreak ==
    (pc["bp"] = "block" /\ ~efd /\ work > taken) => \E k \in WakerIds : pc[k] \in {"break", "write"}
=============================================================================
