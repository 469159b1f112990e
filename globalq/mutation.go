package globalq

// A mutation is a seeded fault in the queue, for proving that the checkers
// catch real bugs (docs/DESIGN.md, rung 8). In a normal build the current
// mutation is the constant noMutation and every faulty branch compiles away;
// under the build tag schedmutant a test selects one with SetMutation.
type mutation uint8

const (
	noMutation mutation = iota
	// BatchSizeOffByOne: GetBatch caps a batch at len/procs + 2 instead of
	// len/procs + 1, so one P takes more than its share.
	batchSizeOffByOne
	// LenNotUnderLock: every change of the length cell is stored after the
	// unlock, not before, so a store from an older critical section can land
	// after a newer one and a lock-free Len or Empty reads a wrong length.
	lenNotUnderLock
	// PutBatchDropsLast: PutBatch leaves out the last item of the batch (for
	// an lfq overflow batch, the new item) although the caller handed it over.
	putBatchDropsLast
	// GetBatchOutOfOrder: GetBatch runs the newest item of the batch it takes
	// and passes the older ones on, as lfq's StealHalf does, so FIFO breaks
	// across a batch.
	getBatchOutOfOrder
	// PutBatchSwapsTwo: PutBatch appends the batch with its first two items
	// swapped, so whole batches stay in order but the items of one do not.
	putBatchSwapsTwo
	// GetSkipsLast: Get, under the lock, returns nil when the queue holds
	// exactly one item, and leaves it there.
	getSkipsLast
	// CheckOneAsEmpty: the lock-free check of Get and GetBatch gives up on a
	// length of 1 as on 0, so a queue of one item looks empty to both.
	checkOneAsEmpty
	// PopKeepsItem: Get leaves the item it took in its slot, so the queue
	// keeps a taken item reachable until the slot is written again.
	popKeepsItem
	// InjectPublishBeforeWrite: Inject.PutBatch publishes every slot of
	// its run (the sequence words) before it writes their values, so a
	// consumer can drain a slot's zero value.
	injectPublishBeforeWrite
	// InjectBatchOverfills: Inject.PutBatch counts one free slot more than
	// the ring has, so a batch into a nearly full ring overwrites the
	// oldest value not yet drained.
	injectBatchOverfills
	// InjectDrainSkipsUnpublished: TryDrain takes a slot whose producer
	// holds its ticket but has not published it as if it were published:
	// it drains the zero value and the real one is lost.
	injectDrainSkipsUnpublished
)

// mutationNames are the names tests, the kill matrix and the TLA+ mutant
// configs (GlobalQ_mutant_<Name>.cfg) share.
var mutationNames = [...]string{
	noMutation:         "none",
	batchSizeOffByOne:  "BatchSizeOffByOne",
	lenNotUnderLock:    "LenNotUnderLock",
	putBatchDropsLast:  "PutBatchDropsLast",
	getBatchOutOfOrder: "GetBatchOutOfOrder",
	putBatchSwapsTwo:   "PutBatchSwapsTwo",
	getSkipsLast:       "GetSkipsLast",
	checkOneAsEmpty:    "CheckOneAsEmpty",
	popKeepsItem:       "PopKeepsItem",

	injectPublishBeforeWrite:    "InjectPublishBeforeWrite",
	injectBatchOverfills:        "InjectBatchOverfills",
	injectDrainSkipsUnpublished: "InjectDrainSkipsUnpublished",
}
