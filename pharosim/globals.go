package pharosim

// wellKnownGlobals are globals every Pharo 12/13 image has. The simulator
// has no source for them, but code may name them: they are declared for the
// dry compile, and `Smalltalk globals includesKey:` answers true for them.
// The set is read-only after package initialization.
var wellKnownGlobals = func() map[string]bool {
	names := []string{
		// the system
		"Smalltalk", "Transcript", "Processor", "Undeclared", "SystemDictionary",
		"SystemNavigation", "Sensor", "Display", "World", "Character", "Symbol",
		// kernel classes
		"Object", "ProtoObject", "Boolean", "True", "False", "UndefinedObject",
		"Behavior", "ClassDescription", "Class", "Metaclass", "Trait",
		"CompiledMethod", "CompiledCode", "Context", "BlockClosure", "FullBlockClosure",
		"Message", "MessageSend", "WeakMessageSend", "Process", "Semaphore", "Mutex", "Monitor", "Delay",
		// numbers
		"Magnitude", "Number", "Integer", "SmallInteger", "LargePositiveInteger",
		"LargeNegativeInteger", "Float", "SmallFloat64", "BoxedFloat64", "Fraction",
		"ScaledDecimal", "Random",
		// collections
		"Collection", "SequenceableCollection", "ArrayedCollection", "HashedCollection",
		"Array", "String", "ByteString", "WideString", "ByteSymbol", "WideSymbol",
		"OrderedCollection", "SortedCollection", "LinkedList", "Interval",
		"Dictionary", "IdentityDictionary", "SmallDictionary", "OrderedDictionary",
		"Set", "IdentitySet", "Bag", "IdentityBag", "ByteArray", "WordArray",
		"Association", "WeakArray", "WeakSet", "WeakKeyDictionary", "WeakValueDictionary",
		"Stack", "Heap", "CollectionIsEmpty",
		// streams
		"Stream", "PositionableStream", "ReadStream", "WriteStream", "ReadWriteStream",
		// exceptions
		"Exception", "Error", "ZeroDivide", "MessageNotUnderstood", "SubscriptOutOfBounds",
		"NotFound", "KeyNotFound", "ValueNotFound", "Warning", "Notification", "Halt",
		"AssertionFailure", "TestFailure", "TestSkipped", "DomainError", "ArithmeticError",
		"NonBooleanReceiver", "SyntaxErrorNotification", "OCCodeError", "CodeError",
		"InvalidArgument", "Abort", "UnhandledError", "ExceptionSet",
		"SubclassResponsibility", "ShouldNotImplement", "ShouldBeImplemented",
		"OutOfMemory", "PrimitiveFailed", "ProcessTerminate",
		// time
		"Date", "Time", "DateAndTime", "Duration", "Timespan", "Week", "Month", "Year",
		// graphics and geometry
		"Point", "Rectangle", "Color", "Form",
		// SUnit
		"TestCase", "TestResource", "TestSuite", "TestResult",
		// files, text and misc
		"FileSystem", "FileReference", "FileLocator", "Path", "ZnClient", "ZnUrl",
		"Text", "TextAttribute", "Cursor", "UUID", "Announcer", "Announcement",
		"STON", "NeoJSONReader", "NeoJSONWriter", "OSPlatform", "Socket", "LibC", "OSProcess",
	}
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}()
