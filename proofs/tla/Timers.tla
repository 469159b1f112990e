------------------------------- MODULE Timers -------------------------------
(***************************************************************************)
(* timers.Heap and timers.Timer: the runtime's per-P timer heaps           *)
(* (runtime/time.go: addtimer, deltimer, modtimer, timers.check and        *)
(* run) with one timer T and the threads the executor will have:           *)
(*   owner   P0 at a schedule: Run of P0's heap                             *)
(*   thief   P1 idle: its steal pass reads P0's earliest-when cell without *)
(*           the lock and, seeing an expired timer, runs P0's heap; then   *)
(*           it runs its own                                                *)
(*   mut     a goroutine that Resets T (on either heap, expired or not)    *)
(*           and Stops it, MaxOps times in all                              *)
(* T's func re-arms T (Reset) on the heap that ran it, as a periodic timer *)
(* or a task's next Sleep does, while T has armings left.                   *)
(*                                                                          *)
(* Time is abstract: the Runs' now is 1, and a when is Expired (1) or Late *)
(* (2); 0 in a cell means an empty heap. A heap holds at most one entry,   *)
(* T's, kept as <<gen, when>>. T's state word is [gen, pending]; a Run     *)
(* pops under the lock and reads the word (RunPop), unlocks (RunUnlock),   *)
(* claims by CAS against the word it read (RunFire) and calls the func    *)
(* with no lock held (FuncRearm). A mutator's Stop or Reset holds T's lock *)
(* throughout; the heap's lock is taken for one step at a time (its        *)
(* critical sections are single steps: Unlink, Arm).                       *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS
    MaxOps,   \* the mutator's Stops and Resets
    MaxGen,   \* armings in all (the first is made in Init)
    Mutant    \* "none" is the real algorithm

\* The broken variants, each with the name of the timers mutation
\* (timers/mutation.go) it models:
\*   StopAfterFire    Stop's disarm is a load (StopLoad) and a store
\*                    (StopStore) instead of one CAS
\*   ClaimIgnoresGen  RunFire claims whatever arming is current, not the one
\*                    whose word RunPop read
\*   RunUnderLock     Run unlocks the heap only after the func has run
\*   NextNotUpdated   Arm does not store the earliest-when cell
\* (HeapSiftWrong breaks the order of a heap of five or more: with one
\* timer there is no order to break; the Go checkers catch it.)
Mutants == {"none", "StopAfterFire", "ClaimIgnoresGen", "RunUnderLock", "NextNotUpdated"}

ASSUME MaxOps \in Nat /\ MaxGen \in Nat /\ MaxGen >= 1 /\ Mutant \in Mutants

Heaps   == {"p0", "p1"}
Expired == 1
Late    == 2
Now     == 1
Whens   == {Expired, Late}
Runners == {"owner", "thief"}
Threads == Runners \cup {"mut"}
None    == "none"
Gens    == 1..MaxGen
NoEntry == <<0, 0>>

VARIABLES
    gen, pending,  \* T's state word
    entry,         \* entry[h]: T's entry in heap h, <<gen, when>>, or NoEntry
    cell,          \* cell[h]: heap h's earliest-when cell, read without the lock
    lock,          \* lock[h]: the thread holding heap h's lock, or None
    tlock,         \* the thread holding T's lock (a mutator), or None
    theap,         \* the heap of T's latest arming (T's field heap)
    whenOf,        \* whenOf[g]: the when of arming g
    fired,         \* fired[g]: times arming g's func ran
    stopped,       \* stopped[g]: times a Stop or Reset said it stopped arming g
    pc,            \* pc[th]
    runOn,         \* runOn[r]: the heap runner r is running
    seen,          \* seen[r]: the word <<gen, pending>> r's RunPop read
    mop,           \* the mutator's current op: <<kind, heap, when>>
    ms,            \* the word the mutator loaded (StopAfterFire's two steps)
    ops            \* the mutator's ops so far

vars == <<gen, pending, entry, cell, lock, tlock, theap, whenOf, fired, stopped, pc, runOn, seen, mop, ms, ops>>

Init ==
    /\ gen = 1 /\ pending = TRUE
    /\ entry = [h \in Heaps |-> IF h = "p0" THEN <<1, Expired>> ELSE NoEntry]
    /\ cell = [h \in Heaps |-> IF h = "p0" THEN Expired ELSE 0]
    /\ lock = [h \in Heaps |-> None]
    /\ tlock = None
    /\ theap = "p0"
    /\ whenOf = [g \in Gens |-> IF g = 1 THEN Expired ELSE 0]
    /\ fired = [g \in Gens |-> 0]
    /\ stopped = [g \in Gens |-> 0]
    /\ pc = [th \in Threads |-> IF th = "mut" THEN "idle" ELSE "check"]
    /\ runOn = [r \in Runners |-> "p0"]
    /\ seen = [r \in Runners |-> <<0, FALSE>>]
    /\ mop = <<"", "p0", 0>>
    /\ ms = <<0, FALSE>>
    /\ ops = 0

StoreCell(h, e) == cell' = [cell EXCEPT ![h] = e[2]]   \* NoEntry's when is 0

-----------------------------------------------------------------------------
\* Run(now, max) on heap runOn[r], max large.

\* The lock-free check: nothing expired, so the Run ends (the thief's steal
\* pass reads P0's cell this way before it runs P0's heap).
RunCheck(r) ==
    /\ pc[r] = "check"
    /\ LET h == runOn[r] IN
         IF cell[h] # 0 /\ cell[h] <= Now
           THEN pc' = [pc EXCEPT ![r] = "pop"]
           ELSE pc' = [pc EXCEPT ![r] = "next"]
    /\ UNCHANGED <<gen, pending, entry, cell, lock, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ms, ops>>

\* Under the lock: pop the top if it has expired and read T's word; store
\* the cells. (The lock step and the unlock are separate steps: the unlock
\* is RunUnlock, or after the func under RunUnderLock.)
RunPop(r) ==
    /\ pc[r] = "pop"
    /\ LET h == runOn[r] IN
         /\ lock[h] = None
         /\ IF entry[h] # NoEntry /\ entry[h][2] <= Now
              THEN /\ seen' = [seen EXCEPT ![r] = <<gen, pending>>]
                   /\ entry' = [entry EXCEPT ![h] = NoEntry]
                   /\ StoreCell(h, NoEntry)
                   /\ lock' = [lock EXCEPT ![h] = r]
                   /\ pc' = [pc EXCEPT ![r] = IF Mutant = "RunUnderLock" THEN "fire" ELSE "unlock"]
              ELSE /\ pc' = [pc EXCEPT ![r] = "next"]   \* lock, look, unlock
                   /\ UNCHANGED <<seen, entry, cell, lock>>
    /\ UNCHANGED <<gen, pending, tlock, theap, whenOf, fired, stopped, runOn, mop, ms, ops>>

RunUnlock(r) ==
    /\ pc[r] = "unlock"
    /\ lock' = [lock EXCEPT ![runOn[r]] = None]
    /\ pc' = [pc EXCEPT ![r] = "fire"]
    /\ UNCHANGED <<gen, pending, entry, cell, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ms, ops>>

\* The claim: CAS of T's word from the one RunPop read (pending) to not
\* pending; the winner calls the func.
RunFire(r) ==
    /\ pc[r] = "fire"
    /\ LET w == IF Mutant = "ClaimIgnoresGen" THEN <<gen, pending>> ELSE seen[r] IN
         IF w[2] /\ gen = w[1] /\ pending
           THEN /\ pending' = FALSE
                /\ fired' = [fired EXCEPT ![w[1]] = @ + 1]
                /\ pc' = [pc EXCEPT ![r] = "func"]
           ELSE /\ pc' = [pc EXCEPT ![r] = IF Mutant = "RunUnderLock" THEN "relock" ELSE "check"]
                /\ UNCHANGED <<pending, fired>>
    /\ seen' = [seen EXCEPT ![r] = <<0, FALSE>>]
    /\ UNCHANGED <<gen, entry, cell, lock, tlock, theap, whenOf, stopped, runOn, mop, ms, ops>>

\* The func: Reset(T, Late) on the heap that ran it, while armings are
\* left, in one step (T's lock, a disarm, an unlink and an arm: the
\* mutator's steps make the same moves); it needs both locks free.
FuncRearm(r) ==
    /\ pc[r] = "func"
    /\ LET h == runOn[r] IN
         /\ tlock = None /\ lock[h] = None
         /\ IF gen < MaxGen
              THEN /\ IF pending   \* a mutator re-armed T since the claim: stop that arming
                        THEN stopped' = [stopped EXCEPT ![gen] = @ + 1]
                        ELSE UNCHANGED stopped
                   /\ gen' = gen + 1 /\ pending' = TRUE
                   /\ whenOf' = [whenOf EXCEPT ![gen + 1] = Late]
                   /\ entry' = [g \in Heaps |-> IF g = h THEN <<gen + 1, Late>> ELSE NoEntry]
                   /\ cell' = [g \in Heaps |->
                                 IF g = h THEN (IF Mutant = "NextNotUpdated" THEN cell[g] ELSE Late)
                                 ELSE IF entry[g] # NoEntry THEN 0 ELSE cell[g]]
                   /\ theap' = h
              ELSE UNCHANGED <<gen, pending, whenOf, entry, cell, theap, stopped>>
    /\ pc' = [pc EXCEPT ![r] = IF Mutant = "RunUnderLock" THEN "relock" ELSE "check"]
    /\ UNCHANGED <<lock, tlock, fired, runOn, seen, mop, ms, ops>>

\* RunUnderLock only: the unlock after the func.
RunRelock(r) ==
    /\ pc[r] = "relock"
    /\ lock' = [lock EXCEPT ![runOn[r]] = None]
    /\ pc' = [pc EXCEPT ![r] = "check"]
    /\ UNCHANGED <<gen, pending, entry, cell, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ms, ops>>

\* A Run is over: the owner is done; the thief goes on from P0's heap (its
\* steal pass) to its own.
RunNext(r) ==
    /\ pc[r] = "next"
    /\ IF r = "thief" /\ runOn[r] = "p0"
         THEN /\ runOn' = [runOn EXCEPT ![r] = "p1"]
              /\ pc' = [pc EXCEPT ![r] = "check"]
         ELSE /\ pc' = [pc EXCEPT ![r] = "done"]
              /\ UNCHANGED runOn
    /\ UNCHANGED <<gen, pending, entry, cell, lock, tlock, theap, whenOf, fired, stopped, seen, mop, ms, ops>>

-----------------------------------------------------------------------------
\* The mutator: Stop, or Reset(h, w), holding the lock of T throughout.

MutBegin ==
    /\ pc["mut"] = "idle" /\ ops < MaxOps /\ tlock = None
    /\ \E op \in {<<"Stop", "p0", 0>>} \cup
                 (IF gen < MaxGen THEN {<<"Reset", h, w>> : h \in Heaps, w \in Whens} ELSE {}) :
         mop' = op
    /\ tlock' = "mut"
    /\ ops' = ops + 1
    /\ pc' = [pc EXCEPT !["mut"] = IF Mutant = "StopAfterFire" THEN "load" ELSE "disarm"]
    /\ UNCHANGED <<gen, pending, entry, cell, lock, theap, whenOf, fired, stopped, runOn, seen, ms>>

\* disarm: one CAS of the word, pending to not pending.
Disarm ==
    /\ pc["mut"] = "disarm"
    /\ IF pending
         THEN /\ pending' = FALSE
              /\ stopped' = [stopped EXCEPT ![gen] = @ + 1]
              /\ pc' = [pc EXCEPT !["mut"] = "unlink"]
         ELSE /\ pc' = [pc EXCEPT !["mut"] = "arm"]
              /\ UNCHANGED <<pending, stopped>>
    /\ UNCHANGED <<gen, entry, cell, lock, tlock, theap, whenOf, fired, runOn, seen, mop, ms, ops>>

\* StopAfterFire: the load, then the store.
StopLoad ==
    /\ pc["mut"] = "load"
    /\ ms' = <<gen, pending>>
    /\ pc' = [pc EXCEPT !["mut"] = "store"]
    /\ UNCHANGED <<gen, pending, entry, cell, lock, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ops>>

StopStore ==
    /\ pc["mut"] = "store"
    /\ IF ms[2]
         THEN /\ pending' = FALSE /\ gen' = ms[1]
              /\ stopped' = [stopped EXCEPT ![ms[1]] = @ + 1]
              /\ pc' = [pc EXCEPT !["mut"] = "unlink"]
         ELSE /\ pc' = [pc EXCEPT !["mut"] = "arm"]
              /\ UNCHANGED <<gen, pending, stopped>>
    /\ ms' = <<0, FALSE>>
    /\ UNCHANGED <<entry, cell, lock, tlock, theap, whenOf, fired, runOn, seen, mop, ops>>

\* unlink: under the lock of T's heap, remove T's entry if a Run has not
\* popped it; store the cells.
Unlink ==
    /\ pc["mut"] = "unlink"
    /\ lock[theap] = None
    /\ IF entry[theap] # NoEntry
         THEN /\ entry' = [entry EXCEPT ![theap] = NoEntry]
              /\ StoreCell(theap, NoEntry)
         ELSE UNCHANGED <<entry, cell>>
    /\ pc' = [pc EXCEPT !["mut"] = "arm"]
    /\ UNCHANGED <<gen, pending, lock, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ms, ops>>

\* arm (Reset only): under the heap's lock, a new generation with the
\* pending bit, then the entry and the cells.
Arm ==
    /\ pc["mut"] = "arm"
    /\ IF mop[1] = "Reset"
         THEN LET h == mop[2] IN
              /\ lock[h] = None
              /\ gen' = gen + 1 /\ pending' = TRUE
              /\ whenOf' = [whenOf EXCEPT ![gen + 1] = mop[3]]
              /\ entry' = [entry EXCEPT ![h] = <<gen + 1, mop[3]>>]
              /\ cell' = IF Mutant = "NextNotUpdated" THEN cell ELSE [cell EXCEPT ![h] = mop[3]]
              /\ theap' = h
         ELSE UNCHANGED <<gen, pending, whenOf, entry, cell, theap>>
    /\ tlock' = None
    /\ mop' = <<"", "p0", 0>>
    /\ pc' = [pc EXCEPT !["mut"] = "idle"]
    /\ UNCHANGED <<lock, fired, stopped, runOn, seen, ms, ops>>

MutDone ==
    /\ pc["mut"] = "idle" /\ ops = MaxOps
    /\ pc' = [pc EXCEPT !["mut"] = "done"]
    /\ UNCHANGED <<gen, pending, entry, cell, lock, tlock, theap, whenOf, fired, stopped, runOn, seen, mop, ms, ops>>

\* Every thread has finished: stutter (a thread stuck on a lock is a deadlock).
Finished ==
    /\ \A th \in Threads : pc[th] = "done"
    /\ UNCHANGED vars

Next ==
    \/ \E r \in Runners : RunCheck(r) \/ RunPop(r) \/ RunUnlock(r) \/ RunFire(r) \/ FuncRearm(r) \/ RunRelock(r) \/ RunNext(r)
    \/ MutBegin \/ Disarm \/ StopLoad \/ StopStore \/ Unlink \/ Arm \/ MutDone
    \/ Finished

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK ==
    /\ gen \in Gens /\ pending \in BOOLEAN
    /\ \A h \in Heaps : entry[h] = NoEntry \/ (entry[h][1] \in Gens /\ entry[h][2] \in Whens)
    /\ \A h \in Heaps : cell[h] \in {0} \cup Whens /\ lock[h] \in Threads \cup {None}
    /\ tlock \in {None, "mut"}

\* Each arming fired or was stopped at most once, never both.
FiredXorStopped == \A g \in Gens : fired[g] + stopped[g] <= 1

\* No func runs for an arming whose when is later than the Run's now.
NoEarlyFire == \A g \in Gens : fired[g] > 0 => whenOf[g] <= Now

\* Whenever a heap's lock is free, its earliest-when cell is its top's when.
NextCell == \A h \in Heaps : lock[h] = None => cell[h] = entry[h][2]

\* T has at most one entry in all heaps, and only for its current, pending
\* arming once T's lock is free; every earlier arming fired or was stopped.
Conservation ==
    /\ Cardinality({h \in Heaps : entry[h] # NoEntry}) <= 1
    /\ tlock = None =>
         /\ \A h \in Heaps : entry[h] # NoEntry => entry[h][1] = gen /\ pending
         /\ \A g \in 1..(gen - 1) : fired[g] + stopped[g] = 1

\* At the end the current arming is fired, stopped, or still in a heap.
AllAccounted ==
    (\A th \in Threads : pc[th] = "done") =>
        (fired[gen] + stopped[gen] = 1) # (\E h \in Heaps : entry[h] # NoEntry)
=============================================================================
