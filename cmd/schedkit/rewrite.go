package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// atomicxPath is the package the rewrite of `schedkit explore` maps
// sync/atomic and sync onto.
const atomicxPath = "github.com/schedkit/schedkit/atomicx"

// atomicNames are sync/atomic's exported names, each of which atomicx has
// under the same name with the same methods (compat.go holds those the
// cells lack): an import of sync/atomic becomes an import of atomicx under
// the same local name, and nothing else in the file changes.
// TestRewriteCoversTheStandardLibrary checks the list against sync/atomic's
// source and atomicx's.
var atomicNames = map[string]bool{
	"Bool": true, "Int32": true, "Int64": true, "Uint32": true, "Uint64": true, "Uintptr": true,
	"Pointer": true, "Value": true,
	"AddInt32": true, "AddInt64": true, "AddUint32": true, "AddUint64": true, "AddUintptr": true,
	"AndInt32": true, "AndInt64": true, "AndUint32": true, "AndUint64": true, "AndUintptr": true,
	"OrInt32": true, "OrInt64": true, "OrUint32": true, "OrUint64": true, "OrUintptr": true,
	"CompareAndSwapInt32": true, "CompareAndSwapInt64": true, "CompareAndSwapUint32": true,
	"CompareAndSwapUint64": true, "CompareAndSwapUintptr": true, "CompareAndSwapPointer": true,
	"LoadInt32": true, "LoadInt64": true, "LoadUint32": true, "LoadUint64": true, "LoadUintptr": true, "LoadPointer": true,
	"StoreInt32": true, "StoreInt64": true, "StoreUint32": true, "StoreUint64": true, "StoreUintptr": true, "StorePointer": true,
	"SwapInt32": true, "SwapInt64": true, "SwapUint32": true, "SwapUint64": true, "SwapUintptr": true, "SwapPointer": true,
}

// syncMapped are the names of package sync that the rewrite points at
// atomicx (sync.Mutex becomes atomicx.Mutex): its blocking primitives,
// whose waits the explorer must see (a thread blocked in a real one would
// hang the exploration). syncKept stay sync's: an interface,
// and two types that never block across a scheduling point (the explorer
// runs one thread at a time, so their internal locks are never contended)
// and are not explored.
var (
	syncMapped = map[string]bool{
		"Mutex": true, "RWMutex": true, "Once": true, "WaitGroup": true,
		"OnceFunc": true, "OnceValue": true, "OnceValues": true, "Cond": true, "NewCond": true,
	}
	syncKept = map[string]bool{"Locker": true, "Pool": true, "Map": true}
)

// rewriteEdit is one change the rewrite makes, at the position of the
// original text.
type rewriteEdit struct {
	Pos      token.Position
	off, end int
	Old, New string
}

// rewriteProblem is a use the rewrite cannot map, at its position.
type rewriteProblem struct {
	Pos token.Position
	Msg string
}

func (p rewriteProblem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Msg) }

// rewriteSource maps filename's uses of sync/atomic and sync onto atomicx.
// It returns the new source and the edits, or a nil source when the file
// uses neither; problems lists the uses it cannot map. Every edit stays on
// its line, so compiler errors, panics and the explorer's file:line name
// the user's own lines. It parses the file (go/parser, with the file
// scope's identifier resolution, so a local variable named atomic or sync
// is left alone) and edits the text at the syntax tree's positions.
func rewriteSource(filename string, src []byte) (out []byte, edits []rewriteEdit, problems []rewriteProblem, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, nil, nil, err
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	text := func(a, b token.Pos) string { return string(src[off(a):off(b)]) }
	edit := func(a, b token.Pos, repl string) {
		edits = append(edits, rewriteEdit{Pos: fset.Position(a), off: off(a), end: off(b), Old: text(a, b), New: repl})
	}
	problem := func(p token.Pos, format string, args ...any) {
		problems = append(problems, rewriteProblem{fset.Position(p), fmt.Sprintf(format, args...)})
	}

	// The imports: local names of sync/atomic and sync, and of atomicx if
	// the file already has it.
	var atomicSpecs, syncSpecs []*ast.ImportSpec
	atomicLocal, syncLocal := map[string]bool{}, map[string]bool{}
	parens := map[*ast.ImportSpec]bool{}
	haveAtomicx := ""
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(spec.Path.Value)
			local := path[strings.LastIndexByte(path, '/')+1:]
			if spec.Name != nil {
				local = spec.Name.Name
			}
			parens[spec] = g.Lparen.IsValid()
			switch {
			case path == atomicxPath && local != "_" && local != ".":
				haveAtomicx = local
			case path != "sync/atomic" && path != "sync", local == "_":
			case local == ".":
				problem(spec.Pos(), "a dot import of %s cannot be mapped onto atomicx: import it by name", path)
			case path == "sync/atomic":
				atomicSpecs = append(atomicSpecs, spec)
				atomicLocal[local] = true
			case path == "sync":
				syncSpecs = append(syncSpecs, spec)
				syncLocal[local] = true
			}
		}
	}
	if len(atomicSpecs) == 0 && len(syncSpecs) == 0 {
		return nil, nil, problems, nil
	}

	// The alias of atomicx for sync's names: "atomicx" unless the file
	// uses that identifier for something else.
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	alias := haveAtomicx
	for i := 0; alias == ""; i++ {
		if a := "atomicx" + strings.Repeat("_", i); !used[a] {
			alias = a
		}
	}

	syncUsed := false // a sync name stays sync's
	syncMoved := false
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.ImportSpec); ok {
			return false
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil { // x.Obj != nil: a local name, not the import
			return true
		}
		name := sel.Sel.Name
		switch {
		case atomicLocal[x.Name]:
			if !atomicNames[name] {
				problem(sel.Pos(), "sync/atomic.%s has no counterpart in atomicx", name)
			}
		case syncLocal[x.Name]:
			switch {
			case syncMapped[name]:
				edit(x.Pos(), x.End(), alias)
				syncMoved = true
			case syncKept[name]:
				syncUsed = true
			default:
				syncUsed = true
				problem(sel.Pos(), "sync.%s has no counterpart in atomicx", name)
			}
		}
		return true
	})

	for _, spec := range atomicSpecs {
		name := "atomic"
		if spec.Name != nil {
			name = spec.Name.Name
		}
		edit(spec.Pos(), spec.End(), name+" "+strconv.Quote(atomicxPath))
	}
	if syncMoved && haveAtomicx == "" {
		spec := syncSpecs[0]
		imp := alias + " " + strconv.Quote(atomicxPath)
		switch {
		case !syncUsed && len(syncSpecs) == 1:
			edit(spec.Pos(), spec.End(), imp)
		case parens[spec]:
			edit(spec.Pos(), spec.End(), text(spec.Pos(), spec.End())+"; "+imp)
		default:
			edit(spec.Pos(), spec.End(), text(spec.Pos(), spec.End())+"; import "+imp)
		}
	} else if syncMoved && !syncUsed {
		for _, spec := range syncSpecs {
			edit(spec.Pos(), spec.End(), "_ "+spec.Path.Value)
		}
	}

	slices.SortFunc(edits, func(a, b rewriteEdit) int { return a.off - b.off })
	var buf bytes.Buffer
	last := 0
	for _, e := range edits {
		buf.Write(src[last:e.off])
		buf.WriteString(e.New)
		last = e.end
	}
	buf.Write(src[last:])
	if _, err := parser.ParseFile(token.NewFileSet(), filename, buf.Bytes(), parser.ParseComments); err != nil {
		return nil, nil, nil, fmt.Errorf("the rewrite of %s does not parse (a bug of schedkit explore): %v", filename, err)
	}
	return buf.Bytes(), edits, problems, nil
}
