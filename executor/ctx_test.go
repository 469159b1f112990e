package executor

import "context"

var bg = context.Background()
