// Package capability decides which system capabilities a rewritten method
// may reach for: deny by default. A candidate may name a global only when
// the original names it, when it is a class of the method's own package, or
// when it is one of a short reviewed list of harmless value classes; it may
// not add a send (or symbol) of a sensitive selector family, thisContext, or
// a pragma, unless the original already uses exactly that.
//
// This file is the one place where the lists live. They are rendered into
// the model prompts (agents) and enforced on every candidate (pipeline); the
// docs/capabilities.md documents them. Change them here and nowhere else.
package capability

// Family is one group of sensitive selectors with the same reach.
type Family struct {
	// ID names the family in refusals ("reflection", "files", …).
	ID string
	// Title says what the family reaches, for prompts and refusals.
	Title string
	// Selectors are refused exactly; Prefixes refuse every selector that
	// starts with them ("perform:" covers perform:with:with: and the rest).
	Selectors []string
	Prefixes  []string
	// Globals of the same reach. They are denied by default anyway (they
	// are not harmless value classes); listing them here only lets a
	// refusal name the family.
	Globals []string
}

// Family IDs that are not selector families.
const (
	// FamilyGlobal is a global outside every family: denied by default.
	FamilyGlobal = "global"
	// FamilyPragma is a pragma the original does not have.
	FamilyPragma = "pragma"
)

// Families are the sensitive selector families, reviewed. A candidate that
// sends one of these selectors, or names it as a literal symbol (symbols
// are performed: `#halt value: x`), is refused unless the original sends
// or names exactly that selector.
func Families() []Family {
	return []Family{
		{
			ID: "reflection", Title: "dynamic sends, selectors built at run time, another object's internals, method and instance lookup, thisContext",
			Prefixes: []string{"perform:", "instVarAt:", "instVarNamed:", "readSlot", "writeSlot", "slotNamed:", "classVariableNamed:"},
			Selectors: []string{
				"asSymbol", "asMutator", "intern:",
				"object:instVarAt:", "object:instVarAt:put:", "object:perform:withArguments:inClass:",
				"withArgs:executeMethod:", "receiver:withArguments:executeMethod:", "executeMethod:",
				"valueWithReceiver:arguments:", "valueWithReceiver:",
				"changeClassTo:", "primitiveChangeClassTo:", "adoptInstance:",
				"methodDict", "methodDict:", "methodDictionary", "methodDictionary:",
				"compiledMethodAt:", "compiledMethodAt:ifAbsent:", "lookupSelector:", "sourceCodeAt:",
				"classPool", "classVarNamed:", "classVarNamed:put:", "readClassVariableNamed:", "writeClassVariableNamed:value:",
				"someObject", "nextObject", "someInstance", "nextInstance", "allInstances", "allInstancesDo:",
				"allSubInstances", "allSubInstancesDo:", "pointersTo", "pointersToExcept:",
				"literalAt:put:", "objectAt:put:", "signalerContext", "signalContext", "asContext", "outerContext",
			},
			Globals: []string{"Context", "MethodContext", "CompiledMethod", "CompiledCode", "CompiledBlock", "Slot", "MirrorPrimitives"},
		},
		{
			ID: "become", Title: "identity swaps",
			Selectors: []string{"become:", "becomeForward:", "becomeForward:copyHash:", "elementsExchangeIdentityWith:",
				"elementsForwardIdentityTo:", "elementsForwardIdentityTo:copyHash:"},
		},
		{
			ID: "evaluation", Title: "evaluation and compilation of source text",
			Prefixes: []string{"evaluate:", "compile:", "compileSilently:"},
			Selectors: []string{"compiler", "compilerClass", "newCompiler", "compileAll", "recompile", "recompile:",
				"readFrom:", "readFromString:"},
			Globals: []string{"Compiler", "OpalCompiler", "OCCompiler", "RBParser", "OCParser", "Decompiler"},
		},
		{
			ID: "processes", Title: "processes and scheduling",
			Selectors: []string{"fork", "forkAt:", "forkNamed:", "forkAt:named:", "forkAndWait", "newProcess", "newProcessWith:",
				"resume", "suspend", "terminate", "primitiveResume", "primitiveSuspend", "valueUnpreemptively"},
			Globals: []string{"Processor", "Process", "ProcessorScheduler", "Semaphore", "Mutex", "Monitor", "Delay", "SharedQueue"},
		},
		{
			ID: "primitives", Title: "FFI and VM primitives",
			Prefixes:  []string{"ffiCall:", "nbCall:", "tryPrimitive", "tryNamedPrimitive"},
			Selectors: []string{"ffiLibrary", "ffiLibraryName"},
			Globals: []string{"ExternalAddress", "ExternalObject", "ExternalStructure", "FFIExternalObject", "FFILibrary",
				"FFICallback", "LibC", "NativeBoost", "Alien"},
		},
		{
			ID: "files", Title: "files and directories",
			Selectors: []string{"asFileReference", "asFileLocator", "asDirectoryEntry",
				"fileNamed:", "fileNamed:do:", "forceNewFileNamed:", "forceNewFileNamed:do:", "newFileNamed:", "oldFileNamed:",
				"readOnlyFileNamed:", "readOnlyFileNamed:do:", "deleteFileNamed:", "fileExists:",
				"readStreamDo:", "writeStreamDo:", "binaryReadStreamDo:", "binaryWriteStreamDo:",
				"ensureDelete", "ensureDeleteAll", "deleteAll", "ensureCreateDirectory", "ensureCreateFile", "createDirectory",
				"workingDirectory", "imageDirectory", "vmDirectory"},
			Globals: []string{"FileSystem", "FileReference", "FileLocator", "File", "FileStream", "StandardFileStream",
				"MultiByteFileStream", "DiskStore", "FileDirectory", "Path"},
		},
		{
			ID: "network", Title: "sockets and URLs",
			Selectors: []string{"asUrl", "asZnUrl", "asURL", "asURI", "retrieveContents",
				"openConnectionTo:port:", "connectTo:port:", "connectToHostNamed:port:", "listenOn:", "listenOn:backlogSize:",
				"newTCP", "newUDP", "addressForName:", "nameForAddress:"},
			Globals: []string{"ZnClient", "ZnServer", "ZnEasy", "ZnUrl", "ZnRequest", "Socket", "SocketStream",
				"SocketAddress", "NetNameResolver", "HTTPSocket", "WebClient"},
		},
		{
			ID: "class-definition", Title: "class definition and removal, adding and removing methods and variables",
			Prefixes: []string{"subclass:", "variableSubclass:", "variableByteSubclass:", "variableWordSubclass:",
				"weakSubclass:", "ephemeronSubclass:", "immediateSubclass:", "removeSelector", "removeFromSystem",
				"addSelector", "basicAddSelector", "addAndClassifySelector", "addInstVarNamed:", "removeInstVarNamed:",
				"addClassVarNamed:", "removeClassVarNamed:"},
			Selectors: []string{"instanceVariableNames:", "rename:", "superclass:", "addSubclass:", "removeSubclass:",
				"newSubclass", "newAnonymousSubclass", "duplicateClassWithNewName:", "removeClassNamed:",
				"removeProtocol:", "removeCategory:", "setTraitComposition:", "slots:", "sharedVariables:", "sharedPools:",
				"classInstaller", "install"},
			Globals: []string{"ClassBuilder", "ShiftClassBuilder", "ShiftClassInstaller", "Behavior", "ClassDescription",
				"Class", "Metaclass", "Trait", "RPackage", "RPackageOrganizer", "PackageOrganizer", "SystemOrganization"},
		},
		{
			ID: "debugging", Title: "halts, debuggers and inspectors",
			Selectors: []string{"halt", "halt:", "haltIf:", "haltIfNil", "haltOnce", "haltOnce:", "haltOnCount:",
				"haltIfTest", "haltIfNotTest", "inspect", "inspectOnce", "explore", "browse"},
			Globals: []string{"Halt", "Debugger", "Transcript", "Inspector"},
		},
		{
			ID: "system", Title: "the system dictionary, global lookup by name, the operating system",
			Prefixes: []string{"asClass"},
			Selectors: []string{"environment", "environment:", "globals", "bindingOf:", "lookupVar:", "classNamed:",
				"classOrTraitNamed:", "snapshot:andQuit:", "quitPrimitive"},
			Globals: []string{"Smalltalk", "SmalltalkImage", "SystemDictionary", "SystemNavigation", "Undeclared",
				"OSProcess", "OSSUnixSubprocess", "OSPlatform", "OSEnvironment", "World", "WorldState",
				"SessionManager", "Author", "Sensor", "Display"},
		},
	}
}

// SystemDictionary says how the system dictionary is reached: the globals
// that are it, and the unary selectors that answer it (Smalltalk globals,
// Smalltalk image, anything's environment). Every message sent to it —
// Smalltalk at:, Smalltalk globals removeKey:, Smalltalk quit — is refused
// unless the original sends that selector to it too, even when the
// original names Smalltalk.
func SystemDictionary() (globals, accessors []string) {
	return []string{"Smalltalk"}, []string{"globals", "image", "environment"}
}

// PrimitivePragmaPrefixes are pragmas that call into the VM or a C
// library. Every pragma the original lacks is refused; these name the
// "primitives" family in the refusal.
func PrimitivePragmaPrefixes() []string {
	return []string{"primitive:", "ffiCall:", "apicall:", "cdecl:", "nbCall:"}
}

// ValueClasses are the reviewed harmless value classes a candidate may name
// even when the original does not: collections, strings, symbols,
// characters, numbers, booleans, associations, intervals, points, streams
// over collections, dates and durations, and the errors such code signals.
// Nothing here reaches outside the objects the method is given.
func ValueClasses() []string {
	return []string{
		"Array", "OrderedCollection", "Set", "IdentitySet", "Bag", "Dictionary", "IdentityDictionary",
		"OrderedDictionary", "SmallDictionary", "SortedCollection", "LinkedList", "Interval", "ByteArray", "Association",
		"String", "ByteString", "WideString", "Symbol", "ByteSymbol", "WideSymbol", "Character",
		"Number", "Integer", "SmallInteger", "LargePositiveInteger", "LargeNegativeInteger", "Float", "SmallFloat64", "BoxedFloat64", "Fraction", "ScaledDecimal",
		"Boolean", "True", "False", "Point", "Rectangle",
		"ReadStream", "WriteStream", "ReadWriteStream",
		"Date", "Time", "DateAndTime", "Duration",
		"Error", "ZeroDivide", "NotFound", "KeyNotFound", "SubscriptOutOfBounds", "DomainError", "ArithmeticError",
		"CollectionIsEmpty",
	}
}
