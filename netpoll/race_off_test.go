//go:build !race

package netpoll_test

const raceBuild = false
