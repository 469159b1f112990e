// Package dot imports sync/atomic with a dot, which schedkit explore cannot map.
package dot

import . "sync/atomic"

// N counts.
var N Int64
