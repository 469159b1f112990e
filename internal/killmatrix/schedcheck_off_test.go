//go:build !schedcheck

package killmatrix_test

// schedcheckBuild says, by build tag, whether the explorer is built in.
const schedcheckBuild = false
