------------------------------- MODULE TaskChan -------------------------------
(***************************************************************************)
(* The task channel (issue 23): the runtime's hchan, chansend, chanrecv,   *)
(* closechan and selectgo, for tasks that park (ParkReady.tla) instead of  *)
(* blocking their M.                                                       *)
(*                                                                         *)
(* One lock per channel; a ring buffer of capacity CapOf(c) (0:            *)
(* unbuffered); recvq and sendq, FIFO queues of waiters (sudogs: the       *)
(* waiter's task, its element slot, an isSelect flag; a select's sudogs    *)
(* share its task's done word, which the first channel to complete it     *)
(* wins by CAS: the runtime's selectDone, reset when the select wakes).    *)
(*   Send   closed: panic. A waiting receiver (dequeue: a select sudog    *)
(*          whose done CAS fails is dropped): write its slot, ready it.   *)
(*          Room in the buffer: enqueue. Else a sudog on sendq and park.  *)
(*   Recv   closed and empty: (zero, false). A waiting sender: unbuffered, *)
(*          take its value; full buffer, take the head and put the        *)
(*          sender's value at the tail; ready the sender. A value in the  *)
(*          buffer: take it. Else a sudog on recvq and park.              *)
(*   Close  closed; every waiting receiver readied with (zero, false),     *)
(*          every waiting sender readied to panic.                         *)
(*   Select locks its channels in a global order; a ready case (any, in    *)
(*          the nondeterministic stand-in for pollorder) runs as above;    *)
(*          none: a sudog on every case's queue and park; woken: lock all, *)
(*          reset the done word, dequeue its sudogs from the other cases'  *)
(*          queues, return the case that woke it.                          *)
(*                                                                         *)
(* Each operation's critical section (under its channel's lock, or all of *)
(* a select's locks, which sellock takes in one global order, so no two   *)
(* critical sections that share a channel overlap) is one step (scenario  *)
(* locks, TaskChanLocks.tla: a select's locks one per step, to check that  *)
(* order). A waiter's                                                      *)
(* park and its ready are ParkReady.tla's protocol: here a parked task is  *)
(* "parked" and a ready makes it "readied" (a ready of a task that is not *)
(* parked is a double ready, which ParkReady's Ready panics on); the       *)
(* woken task's own step reads its slot (a select runs its pass 3 there). *)
(* Go readies a waiter after the unlock; here in the critical section:    *)
(* the dequeued waiter is on no queue anyone else reaches, so they commute. *)
(* Tasks run on any P: where a ready puts them (the waker's runnext) is    *)
(* ParkReady's. Try-forms (select with a default) are the same critical    *)
(* sections without the park and are left out, as are select send cases  *)
(* (the mirror of the receive cases).                                     *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Cap,       \* channel 1's capacity; channel 2 is unbuffered
    Scenario,  \* "small", "long", or "locks" (the select's locks, one per step)
    Mutant     \* "none" is the real algorithm

\* The broken variants (the Go mutations share the names):
\*   SelectLeavesStaleWaiter  a woken select resets its done word but does
\*                            not dequeue its sudogs from the other cases'
\*                            channels: a later sender completes a
\*                            finished select (select.go's pass 3: "otherwise
\*                            they stack up on quiet channels")
\*   CloseSkipsSenders        close readies the waiting receivers only: the
\*                            senders stay parked on a closed channel
\*   RecvFullSkipsSender      a receive from a full buffer takes the head
\*                            and leaves the waiting sender parked, with
\*                            room for its value
\*   SelectNoDoneCAS          dequeue does not CAS a select's done word: two
\*                            channels complete one select (the race
\*                            waitq.dequeue's selectDone closes; raven's
\*                            martian56/raven#403 is its lost-wakeup form)
\*   SelectLocksInCaseOrder   (scenario locks) sellock takes a select's
\*                            channel locks in its case order, not in the
\*                            global order: two selects deadlock
\*   SendWakesWithoutHandoff  a send to a parked receiver readies it as
\*                            successful without writing its slot
\*   WaitqLIFO                a waiter joins the head of its queue
Mutants == {"none", "SelectLeavesStaleWaiter", "CloseSkipsSenders",
            "RecvFullSkipsSender", "SelectNoDoneCAS", "SelectLocksInCaseOrder",
            "SendWakesWithoutHandoff", "WaitqLIFO"}

ASSUME /\ Cap \in 1..2 /\ Scenario \in {"small", "long", "locks"} /\ Mutant \in Mutants

Chans == {1, 2}
CapOf(c) == IF c = 1 THEN Cap ELSE 0

\* The tasks and their programs. Ops: <<"send", c, v>>, <<"recv", c, 0>>,
\* <<"close", c, 0>>, <<"select", 0, 0>> (receive from channel 1 or 2).
Tasks == CASE Scenario = "small" -> {"S1", "S2", "R", "X", "K"}
          [] Scenario = "long"  -> {"S1", "S2", "R", "X", "Y", "K"}
          [] Scenario = "locks" -> {"S1", "X", "Y", "K"}
Prog(t) ==
    CASE t = "S1" -> IF Scenario = "locks" THEN <<<<"send", 1, 1>>>>
                     ELSE <<<<"send", 1, 1>>, <<"send", 1, 2>>>>
      [] t = "S2" -> IF Scenario = "small" THEN <<<<"send", 2, 3>>>>
                     ELSE <<<<"send", 2, 3>>, <<"send", 1, 4>>>>
      [] t = "R"  -> <<<<"recv", 1, 0>>>>
      [] t = "X"  -> <<<<"select", 0, 0>>>>
      [] t = "Y"  -> <<<<"select", 0, 0>>>>
      [] t = "K"  -> <<<<"close", 1, 0>>, <<"close", 2, 0>>>>
SelChans == {1, 2}              \* a select's receive cases
Vals == CASE Scenario = "small" -> {1, 2, 3}
         [] Scenario = "long"  -> {1, 2, 3, 4}
         [] Scenario = "locks" -> {1}
\* Scenario locks: the select's steps take their channel locks one per step
\* (sellock), in the global order (lockorder: here channel 1 first), or,
\* in the mutant, in the select's case order: X's cases are 1, 2 and Y's
\* 2, 1. Every other operation holds one lock in a step of its own.
Locks == Scenario = "locks"
CaseOrder(t) == IF t = "Y" THEN <<2, 1>> ELSE <<1, 2>>
LockOrder(t) == IF Mutant = "SelectLocksInCaseOrder" THEN CaseOrder(t) ELSE <<1, 2>>
None == "none"
SenderOf(v) == IF v \in {1, 2} THEN "S1" ELSE IF v = 3 THEN "S2" ELSE "S2"

\* A sudog: <<task, isSelect, value (a sender's; 0 for a receiver)>>.
SG(t, sel, v) == <<t, sel, v>>

VARIABLES
    pc,       \* pc[t]: "run", "parked", "readied", "done", "panicked"
    ip,       \* ip[t]: the op it is at
    buf,      \* buf[c]: the buffer, oldest first
    recvq,    \* recvq[c]: waiting receivers' sudogs, FIFO
    sendq,    \* sendq[c]: waiting senders' sudogs, FIFO
    closed,   \* closed[c]
    slot,     \* slot[t]: the element slot of t's sudog (a receive's value)
    succ,     \* succ[t]: the sudog's success flag
    param,    \* param[t]: the channel whose sudog woke t (gp.param)
    sdone,    \* sdone[t]: t's select done word (selectDone)
    \* history, for the properties only:
    got,      \* got[t]: t's receive results <<value, ok, channel>>, in order
    taken,    \* taken[c]: the values that left channel c, in order
    sentOK,   \* values whose send completed (returned, or was taken)
    wins,     \* wins[t]: completions of t's current select
    dready,   \* a ready found its task not parked
    lateSend, \* a parked sender's value was taken from a closed channel
    lk,       \* lk[c]: the task holding channel c's lock (scenario locks)
    sl,       \* sl[t]: the locks t's sellock holds (scenario locks)
    arr       \* the tasks that have enqueued a sudog and not yet woken, in order

vars == <<pc, ip, buf, recvq, sendq, closed, slot, succ, param, sdone, got, taken,
          sentOK, wins, dready, lateSend, lk, sl, arr>>

Init ==
    /\ pc = [t \in Tasks |-> "run"] /\ ip = [t \in Tasks |-> 1]
    /\ buf = [c \in Chans |-> <<>>]
    /\ recvq = [c \in Chans |-> <<>>] /\ sendq = [c \in Chans |-> <<>>]
    /\ closed = [c \in Chans |-> FALSE]
    /\ slot = [t \in Tasks |-> 0] /\ succ = [t \in Tasks |-> FALSE]
    /\ param = [t \in Tasks |-> 0] /\ sdone = [t \in Tasks |-> 0]
    /\ got = [t \in Tasks |-> <<>>] /\ taken = [c \in Chans |-> <<>>]
    /\ sentOK = {} /\ wins = [t \in Tasks |-> 0]
    /\ dready = FALSE /\ lateSend = FALSE
    /\ lk = [c \in Chans |-> None] /\ sl = [t \in Tasks |-> 0]
    /\ arr = <<>>

Op(t) == Prog(t)[ip[t]]
Running(t) == pc[t] = "run" /\ ip[t] <= Len(Prog(t))

(***************************************************************************)
(* waitq.dequeue: the first sudog that is not a select another channel has *)
(* won (its done CAS 0 -> 1 fails); the ones before it are dropped. The    *)
(* mutant SelectNoDoneCAS takes the head, no CAS.                          *)
(***************************************************************************)
Dead(s) == s[2] /\ sdone[s[1]] = 1
LiveIdx(q) == {i \in DOMAIN q : ~Dead(q[i]) /\ \A j \in 1..(i - 1) : Dead(q[j])}
HasLive(q) == IF Mutant = "SelectNoDoneCAS" THEN q # <<>> ELSE LiveIdx(q) # {}
FirstLive(q) == IF Mutant = "SelectNoDoneCAS" THEN 1 ELSE CHOOSE i \in LiveIdx(q) : TRUE
\* The queue after the dequeue of its first live sudog.
AfterDeq(q) == SubSeq(q, FirstLive(q) + 1, Len(q))
\* The done word after the dequeue of sudog s.
DoneAfter(s) == IF s[2] /\ Mutant # "SelectNoDoneCAS" THEN [sdone EXCEPT ![s[1]] = 1] ELSE sdone

\* ready: the parked task r becomes runnable; a task not parked is a double
\* ready.
Ready(r) ==
    /\ pc' = [pc EXCEPT ![r] = IF @ = "parked" THEN "readied" ELSE @]
    /\ dready' = (dready \/ pc[r] # "parked")

Next1(t) == ip' = [ip EXCEPT ![t] = @ + 1]

\* waitq.enqueue: at the tail (the mutant WaitqLIFO: at the head).
Enq(q, s) == IF Mutant = "WaitqLIFO" THEN <<s>> \o q ELSE Append(q, s)

(***************************************************************************)
(* chansend's critical section for task t: <<"send", c, v>>.               *)
(***************************************************************************)
Send(t) ==
    /\ Running(t) /\ Op(t)[1] = "send"
    /\ LET c == Op(t)[2]  v == Op(t)[3] IN
       IF closed[c]
         THEN /\ pc' = [pc EXCEPT ![t] = "panicked"]
              /\ UNCHANGED <<ip, buf, recvq, sendq, slot, succ, param, sdone, taken,
                             sentOK, wins, dready>>
       ELSE IF HasLive(recvq[c])
         THEN LET s == recvq[c][FirstLive(recvq[c])]  r == s[1] IN
              /\ recvq' = [recvq EXCEPT ![c] = AfterDeq(@)]
              /\ sdone' = DoneAfter(s)
              /\ slot' = [slot EXCEPT ![r] = IF Mutant = "SendWakesWithoutHandoff" THEN 0 ELSE v]
              /\ succ' = [succ EXCEPT ![r] = TRUE]
              /\ param' = [param EXCEPT ![r] = c]
              /\ wins' = IF s[2] THEN [wins EXCEPT ![r] = @ + 1] ELSE wins
              /\ taken' = [taken EXCEPT ![c] = Append(@, v)]
              /\ sentOK' = sentOK \cup {v}
              /\ Ready(r) /\ Next1(t)
              /\ UNCHANGED <<buf, sendq>>
       \* No live receiver: dequeue dropped the sudogs of selects another
       \* channel won, if any.
       ELSE IF Len(buf[c]) < CapOf(c)
         THEN /\ buf' = [buf EXCEPT ![c] = Append(@, v)]
              /\ recvq' = [recvq EXCEPT ![c] = <<>>]
              /\ sentOK' = sentOK \cup {v} /\ Next1(t)
              /\ UNCHANGED <<pc, sendq, slot, succ, param, sdone, taken, wins, dready>>
       ELSE /\ sendq' = [sendq EXCEPT ![c] = Enq(@, SG(t, FALSE, v))]
            /\ recvq' = [recvq EXCEPT ![c] = <<>>]
            /\ pc' = [pc EXCEPT ![t] = "parked"]
            /\ UNCHANGED <<ip, buf, slot, succ, param, sdone, taken, sentOK, wins, dready>>
    /\ UNCHANGED <<closed, got, lateSend>>

(***************************************************************************)
(* chanrecv's critical section on channel c for task t, which is a plain   *)
(* receive or a select's ready case (sel): it completes at once.           *)
(***************************************************************************)
RecvReady(c) ==
    \/ closed[c] \/ buf[c] # <<>>
    \/ HasLive(sendq[c])

\* The value t gets, and the channel's change.
RecvNow(t, c, sel) ==
    /\ IF closed[c] /\ buf[c] = <<>>
         THEN /\ got' = [got EXCEPT ![t] = Append(@, <<0, FALSE, c>>)]
              /\ UNCHANGED <<buf, sendq, sdone, succ, taken, sentOK, pc, dready, lateSend>>
       ELSE IF HasLive(sendq[c]) /\ ~(Mutant = "RecvFullSkipsSender" /\ buf[c] # <<>>)
         THEN LET s == sendq[c][FirstLive(sendq[c])]  w == s[1] IN
              /\ sendq' = [sendq EXCEPT ![c] = AfterDeq(@)]
              /\ sdone' = DoneAfter(s)
              /\ succ' = [succ EXCEPT ![w] = TRUE]
              /\ sentOK' = sentOK \cup {s[3]}
              /\ lateSend' = (lateSend \/ closed[c])
              /\ Ready(w)
              /\ IF CapOf(c) = 0
                   THEN /\ got' = [got EXCEPT ![t] = Append(@, <<s[3], TRUE, c>>)]
                        /\ taken' = [taken EXCEPT ![c] = Append(@, s[3])]
                        /\ UNCHANGED buf
                   ELSE IF buf[c] = <<>> \* only when a mutant left a sender beside room
                   THEN /\ got' = [got EXCEPT ![t] = Append(@, <<s[3], TRUE, c>>)]
                        /\ taken' = [taken EXCEPT ![c] = Append(@, s[3])]
                        /\ UNCHANGED buf
                   ELSE /\ got' = [got EXCEPT ![t] = Append(@, <<Head(buf[c]), TRUE, c>>)]
                        /\ taken' = [taken EXCEPT ![c] = Append(@, Head(buf[c]))]
                        /\ buf' = [buf EXCEPT ![c] = Append(Tail(@), s[3])]
         ELSE /\ got' = [got EXCEPT ![t] = Append(@, <<Head(buf[c]), TRUE, c>>)]
              /\ taken' = [taken EXCEPT ![c] = Append(@, Head(buf[c]))]
              /\ buf' = [buf EXCEPT ![c] = Tail(@)]
              /\ UNCHANGED <<sendq, sdone, succ, sentOK, pc, dready, lateSend>>
    /\ wins' = IF sel THEN [wins EXCEPT ![t] = 1] ELSE wins
    /\ Next1(t)

Recv(t) ==
    /\ Running(t) /\ Op(t)[1] = "recv"
    /\ LET c == Op(t)[2] IN
       IF RecvReady(c)
         THEN RecvNow(t, c, FALSE) /\ UNCHANGED <<recvq, slot, param>>
         ELSE /\ recvq' = [recvq EXCEPT ![c] = Enq(@, SG(t, FALSE, 0))]
              /\ pc' = [pc EXCEPT ![t] = "parked"]
              /\ UNCHANGED <<ip, buf, sendq, slot, succ, param, sdone, got, taken,
                             sentOK, wins, dready, lateSend>>
    /\ UNCHANGED closed

(***************************************************************************)
(* selectgo for task t (receive from channel 1 or 2), all its locks held: *)
(* a ready case (any of them: pollorder is random), else a sudog on each  *)
(* case's recvq (sharing t's done word, 0) and park.                       *)
(***************************************************************************)
Select(t) ==
    /\ Running(t) /\ Op(t)[1] = "select"
    /\ IF \E c \in SelChans : RecvReady(c)
         THEN \E c \in SelChans :
                /\ RecvReady(c)
                /\ RecvNow(t, c, TRUE) /\ UNCHANGED <<recvq, slot, param>>
         ELSE /\ recvq' = [c \in Chans |-> IF c \in SelChans THEN Enq(recvq[c], SG(t, TRUE, 0))
                                           ELSE recvq[c]]
              /\ sdone' = [sdone EXCEPT ![t] = 0]
              /\ wins' = [wins EXCEPT ![t] = 0]
              /\ pc' = [pc EXCEPT ![t] = "parked"]
              /\ UNCHANGED <<ip, buf, sendq, slot, succ, param, got, taken, sentOK, dready, lateSend>>
    /\ UNCHANGED closed

(***************************************************************************)
(* closechan for channel c: every waiting receiver gets (zero, false),     *)
(* every waiting sender is readied to panic (dequeue: a select another    *)
(* channel won is dropped). The mutant CloseSkipsSenders leaves sendq.    *)
(***************************************************************************)
\* The live sudogs of q, in order (all of them in SelectNoDoneCAS).
RECURSIVE LiveOf(_, _)
LiveOf(q, done) ==
    IF q = <<>> THEN <<>>
    ELSE IF Head(q)[2] /\ done[Head(q)[1]] = 1 /\ Mutant # "SelectNoDoneCAS"
      THEN LiveOf(Tail(q), done)
      ELSE <<Head(q)>> \o LiveOf(Tail(q), [done EXCEPT ![Head(q)[1]] = IF Head(q)[2] THEN 1 ELSE @])
Tk(q) == {q[i][1] : i \in DOMAIN q}

Close(t) ==
    /\ Running(t) /\ Op(t)[1] = "close"
    /\ LET c == Op(t)[2]
           rs == LiveOf(recvq[c], sdone)
           ss == IF Mutant = "CloseSkipsSenders" THEN <<>> ELSE LiveOf(sendq[c], sdone)
           woken == Tk(rs) \cup Tk(ss)
       IN /\ closed' = [closed EXCEPT ![c] = TRUE]
          /\ recvq' = [recvq EXCEPT ![c] = <<>>]
          /\ sendq' = IF Mutant = "CloseSkipsSenders" THEN sendq ELSE [sendq EXCEPT ![c] = <<>>]
          /\ slot' = [r \in Tasks |-> IF r \in Tk(rs) THEN 0 ELSE slot[r]]
          /\ succ' = [r \in Tasks |-> IF r \in woken THEN FALSE ELSE succ[r]]
          /\ param' = [r \in Tasks |-> IF r \in woken THEN c ELSE param[r]]
          /\ sdone' = [r \in Tasks |-> IF r \in woken /\ \E i \in DOMAIN rs : rs[i] = SG(r, TRUE, 0)
                                         THEN 1 ELSE sdone[r]]
          /\ wins' = [r \in Tasks |-> IF \E i \in DOMAIN rs : rs[i] = SG(r, TRUE, 0)
                                        THEN wins[r] + 1 ELSE wins[r]]
          /\ pc' = [r \in Tasks |-> IF r \in woken /\ pc[r] = "parked" THEN "readied" ELSE pc[r]]
          /\ dready' = (dready \/ \E r \in woken : pc[r] # "parked")
          /\ Next1(t)
    /\ UNCHANGED <<buf, got, taken, sentOK, lateSend>>

(***************************************************************************)
(* A readied task runs: a receive returns its slot and success; a send     *)
(* returns, or panics (closed); a select locks its channels, resets its   *)
(* done word, dequeues its sudogs from the other cases' channels (not in  *)
(* SelectLeavesStaleWaiter) and returns the case param names.             *)
(***************************************************************************)
Drop(q, t) == SelectSeq(q, LAMBDA s : s[1] # t)

Wake(t) ==
    /\ pc[t] = "readied"
    /\ LET o == Op(t) IN
       /\ IF o[1] = "send" /\ ~succ[t]
            THEN pc' = [pc EXCEPT ![t] = "panicked"] /\ UNCHANGED <<ip, got>>
          ELSE /\ pc' = [pc EXCEPT ![t] = "run"] /\ Next1(t)
               /\ got' = IF o[1] = "send" THEN got
                         ELSE [got EXCEPT ![t] = Append(@, <<slot[t], succ[t], param[t]>>)]
       /\ IF o[1] = "select"
            THEN /\ sdone' = [sdone EXCEPT ![t] = 0]
                 /\ recvq' = IF Mutant = "SelectLeavesStaleWaiter" THEN recvq
                             ELSE [c \in Chans |-> IF c = param[t] THEN recvq[c] ELSE Drop(recvq[c], t)]
            ELSE UNCHANGED <<sdone, recvq>>
    /\ UNCHANGED <<buf, sendq, closed, slot, succ, param, taken, sentOK, wins, dready, lateSend>>

End(t) ==
    /\ pc[t] = "run" /\ ip[t] > Len(Prog(t))
    /\ pc' = [pc EXCEPT ![t] = "done"]
    /\ UNCHANGED <<ip, buf, recvq, sendq, closed, slot, succ, param, sdone, got, taken,
                   sentOK, wins, dready, lateSend>>

\* Scenario locks: a select's pass 1 and 2 (Select) and its pass 3 (a
\* select's Wake) run once its sellock holds both locks, and release them;
\* every other operation needs its channel's lock free (and takes and
\* releases it in its step); a woken send or receive takes no lock.
InSellock(t) == ip[t] <= Len(Prog(t)) /\ Op(t)[1] = "select" /\ pc[t] \in {"run", "readied"}
SelLock(t) ==
    /\ Locks /\ InSellock(t) /\ sl[t] < 2
    /\ LET c == LockOrder(t)[sl[t] + 1] IN
       /\ lk[c] = None
       /\ lk' = [lk EXCEPT ![c] = t] /\ sl' = [sl EXCEPT ![t] = @ + 1]
    /\ UNCHANGED <<pc, ip, buf, recvq, sendq, closed, slot, succ, param, sdone, got,
                   taken, sentOK, wins, dready, lateSend, arr>>
OpChan(t) == IF Op(t)[1] \in {"send", "recv", "close"} THEN Op(t)[2] ELSE 0
\* (IF, not \/: TLC would take every disjunct of an action as a branch.)
Gate(t) ==
    IF ~Locks \/ ip[t] > Len(Prog(t)) THEN TRUE
    ELSE IF InSellock(t) THEN sl[t] = 2
    ELSE pc[t] = "readied" \/ lk[OpChan(t)] = None
LockAfter(t) ==
    IF Locks /\ InSellock(t)
      THEN /\ lk' = [c \in Chans |-> IF lk[c] = t THEN None ELSE lk[c]]
           /\ sl' = [sl EXCEPT ![t] = 0]
      ELSE UNCHANGED <<lk, sl>>

\* The history arr: a task that parks joins its tail; one that wakes
\* leaves it.
ArrAfter(t) ==
    arr' = CASE pc'[t] = "parked" /\ pc[t] # "parked" -> Append(arr, t)
             [] pc[t] = "readied" /\ pc'[t] # "readied" -> SelectSeq(arr, LAMBDA x : x # t)
             [] OTHER -> arr

TStep(t) ==
    \/ /\ Send(t) \/ Recv(t) \/ Select(t) \/ Close(t) \/ Wake(t) \/ End(t)
       /\ Gate(t) /\ LockAfter(t) /\ ArrAfter(t)
    \/ SelLock(t)

\* Every task done or panicked: the state stutters. With it in Next, TLC's
\* deadlock check is a termination check (every other step moves a task or
\* a value, so the graph has no cycle): a deadlock is a task parked for
\* good.
Terminated == (\A t \in Tasks : pc[t] \in {"done", "panicked"}) /\ UNCHANGED vars

Next == (\E t \in Tasks : TStep(t)) \/ Terminated

Spec == Init /\ [][Next]_vars /\ \A t \in Tasks : WF_vars(TStep(t))

---------------------------------------------------------------------------
TypeOK ==
    /\ pc \in [Tasks -> {"run", "parked", "readied", "done", "panicked"}]
    /\ \A c \in Chans : Len(buf[c]) <= CapOf(c)
    /\ closed \in [Chans -> BOOLEAN] /\ sdone \in [Tasks -> 0..1]
    /\ dready \in BOOLEAN

\* Where value v is: in a buffer, in a parked sender's sudog, in the slot
\* of a readied receiver that has not read it, or received.
InSeq(q, v) == Cardinality({i \in DOMAIN q : q[i] = v})
Occ(v) ==
    InSeq(buf[1], v) + InSeq(buf[2], v)
    + Cardinality({t \in Tasks : pc[t] = "readied" /\ Op(t)[1] # "send" /\ slot[t] = v})
    + Cardinality({<<t, i>> \in Tasks \X (1..3) : i \in DOMAIN got[t] /\ got[t][i][1] = v /\ got[t][i][2]})

\* ExactlyOnce: a value is never in two places, and a value whose send
\* completed is in one (no value lost, none received twice).
ExactlyOnce == \A v \in Vals : Occ(v) <= 1 /\ (v \in sentOK => Occ(v) = 1)

\* FIFO per sender: the values of one sender leave a channel in the order
\* it sent them.
FIFOPerSender ==
    \A c \in Chans : \A i, j \in DOMAIN taken[c] :
        i < j /\ SenderOf(taken[c][i]) = SenderOf(taken[c][j]) => taken[c][i] < taken[c][j]

\* A receive that returns ok = false returns the zero value, from a closed
\* channel with nothing buffered (a closed channel's buffer only drains);
\* one that returns ok = true returns a value that was sent.
ClosedRecvZero ==
    \A t \in Tasks : \A i \in DOMAIN got[t] :
        IF got[t][i][2] THEN got[t][i][1] \in Vals
        ELSE got[t][i][1] = 0 /\ closed[got[t][i][3]] /\ buf[got[t][i][3]] = <<>>

\* Send on a closed channel panics: a task panics only in a send on a
\* closed channel (one that began after the close, or was parked when it
\* came), and no send completes on a closed channel (Send's closed check
\* comes first, and close readies every parked sender to panic, so no
\* receiver takes a parked sender's value after the close).
SendOnClosedPanics ==
    /\ \A t \in Tasks : pc[t] = "panicked" => Op(t)[1] = "send" /\ closed[Op(t)[2]]
    /\ ~lateSend

\* A select completes exactly one case: at most one channel completes it,
\* and a woken select returns the case whose sudog was dequeued.
SelectOneCase == \A t \in Tasks : wins[t] <= 1

\* No stale waiter: every sudog on a queue is a parked task's, or a
\* select's that another case has won and that is readied, not yet through
\* its pass 3 (dequeue drops those); no task has two sudogs on one queue.
Waiter(s) == pc[s[1]] = "parked" \/ (s[2] /\ sdone[s[1]] = 1 /\ pc[s[1]] = "readied")
NoStaleWaiter ==
    \A c \in Chans :
        /\ \A i \in DOMAIN recvq[c] : Waiter(recvq[c][i])
        /\ \A i \in DOMAIN sendq[c] : Waiter(sendq[c][i])
        /\ \A i, j \in DOMAIN recvq[c] : i < j => recvq[c][i][1] # recvq[c][j][1]

\* No lost wakeup: a live waiter (a parked task's sudog) waits only for
\* what is not there: receivers only on an empty buffer with no live
\* sender, senders only on a full buffer; and every parked task has a live
\* sudog, so a partner or close will find it and ready it.
Live(q) == {q[i] : i \in {i \in DOMAIN q : pc[q[i][1]] = "parked"}}
NoLostWakeup ==
    /\ \A c \in Chans :
        /\ Live(recvq[c]) # {} => buf[c] = <<>> /\ Live(sendq[c]) = {}
        /\ Live(sendq[c]) # {} => Len(buf[c]) = CapOf(c)
    /\ \A t \in Tasks : pc[t] = "parked" =>
        \E c \in Chans : \E s \in Live(recvq[c]) \cup Live(sendq[c]) : s[1] = t

\* Nobody waits on a closed channel: close readies every waiter, and no
\* operation parks on a closed channel (a receive returns, a send panics).
ClosedHasNoWaiters ==
    \A c \in Chans : closed[c] => Live(recvq[c]) = {} /\ Live(sendq[c]) = {}

\* A ready always finds its task parked.
NoDoubleReady == ~dready

\* FIFO waiters: every queue holds its sudogs in the order their tasks
\* parked (arr), so the first to wait is the first served.
Pos(t) == CHOOSE i \in DOMAIN arr : arr[i] = t
InArr(t) == \E i \in DOMAIN arr : arr[i] = t
OrderedQ(q) ==
    \A i, j \in DOMAIN q : i < j /\ InArr(q[i][1]) /\ InArr(q[j][1]) => Pos(q[i][1]) < Pos(q[j][1])
WaitersFIFO == \A c \in Chans : OrderedQ(recvq[c]) /\ OrderedQ(sendq[c])

\* No lock cycle (scenario locks): no two selects each wait in their
\* sellock for a lock the other holds.
Waits(t) == IF Locks /\ pc[t] \in {"run", "readied"} /\ ip[t] <= Len(Prog(t))
                /\ InSellock(t) /\ sl[t] < 2
            THEN LockOrder(t)[sl[t] + 1] ELSE 0
NoLockCycle ==
    \A t, u \in Tasks :
        ~(t # u /\ Waits(t) # 0 /\ Waits(u) # 0 /\ lk[Waits(t)] = u /\ lk[Waits(u)] = t)
=============================================================================
