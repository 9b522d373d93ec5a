package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStreamsAnswerAsPharo: what Pharo 13's stream tests
// (Collections-Streams-Tests) show its streams answer.
func TestStreamsAnswerAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"a stream is made on a collection, never with new", "[ WriteStream new. 1 ] on: Error do: [ :e | 2 ]", "2"},
		{"nor a read-write stream", "[ ReadWriteStream new. 1 ] on: Error do: [ :e | 2 ]", "2"},
		{"a reset write stream still holds what it wrote", "| s | s := WriteStream on: String new. { s isEmpty. s nextPut: $a; isEmpty. s reset; isEmpty }", "#(true false false)"},
		{"a read-write stream is empty only with nothing written", "| s | s := ReadWriteStream on: (String new: 8). { s isEmpty. s nextPut: $a; isEmpty. s reset; isEmpty. s next; isEmpty }", "#(true false false false)"},
		{"a read stream at its end is not empty", "| s | s := ReadStream on: 'abc'. { s isEmpty. s setToEnd; isEmpty. (ReadStream on: '') isEmpty }", "#(false false true)"},
		{"setToEnd goes to the end of what was written", "| s | s := WriteStream on: String new. s nextPutAll: 'testing'. s position: 3. { s setToEnd position. s contents }", "#(7 'testing')"},
		{"a position past what was written is an error", "| s | s := WriteStream on: String new. s nextPutAll: 'abc'. { [ s position: 4 ] on: Error do: [ :e | #outOfBounds ]. [ s position: -1 ] on: Error do: [ :e | #outOfBounds ]. (s position: 1) == s. s contents }", "#(#outOfBounds #outOfBounds true 'a')"},
		{"on:from:to: writes after what lies before from", "| s | s := WriteStream on: 'testingtesting' copy from: 8 to: 14. { s position. s contents. s size }", "#(7 'testing' 14)"},
		{"with:from:to: appends to the part", "| s | s := WriteStream with: 'testingtesting' from: 1 to: 7. { s position. s contents. s size }", "#(7 'testing' 7)"},
		{"<< writes a collection of the stream's class whole", "String streamContents: [ :out | out << $a << 'bcd' << $e ]", "'abcde'"},
		{"<< writes each element of another collection", "Array streamContents: [ :out | out << 1 << #(2 3 4) asOrderedCollection << 5 ]", "#(1 2 3 4 5)"},
		{"<< into a byte array", "ByteArray streamContents: [ :out | out << 1 << #[2 3 4] << 5 ]", "#[1 2 3 4 5]"},
		{"<< does not print a number into a string", "[ String streamContents: [ :out | out << 1234 ] ] on: Error do: [ :e | #error ]", "#error"},
		{"back answers the element stepped over", "| s | s := 'abc' readStream. s setToEnd. { s back. s position. s peekBack. s position }", "#($c 2 $b 2)"},
		{"back at the start is an error", "[ 'abc' readStream back ] on: Error do: [ :e | #error ]", "#error"},
		{"oldBack answers the element before the last read", "| s | s := 'abc' readStream. s setToEnd. { s oldBack. s setToEnd; oldPeekBack }", "#($b $b)"},
		{"oldBack after the first element", "| s | s := 'abc' readStream. s next. { s oldBack. s position }", "#(nil 0)"},
		{"positionOfSubCollection: answers the index of the match", "{ 'xyz' readStream positionOfSubCollection: 'q'. 'xyz' readStream positionOfSubCollection: 'x'. 'xyz' readStream positionOfSubCollection: 'yz' }", "#(0 1 2)"},
		{"upToAll: an empty collection answers nothing", "{ 'a' readStream upToAll: ''. 'abc' readStream upToAll: 'bc'. 'abc' readStream upToAll: 'cd'. 'ab' readStream upToAll: 'ab' }", "#('' 'a' 'abc' '')"},
		{"upToAll: skips the match", "| s | s := 'abcdefgh' readStream. s upToAll: 'cd'. s upToAll: 'gh'", "'ef'"},
		{"ensureEndsWith: writes unless empty or already there", "| s | s := WriteStream on: String new. s ensureEndsWith: $x. s nextPutAll: 'ab'; ensureEndsWith: $b; ensureEndsWith: $c. s contents", "'abc'"},
		{"ensureNoSpace steps back over trailing spaces", "| s | s := WriteStream on: String new. s ensureNoSpace; nextPutAll: ' a  '; ensureNoSpace; nextPut: $b. s contents", "' ab'"},
		{"ensureASpace", "| s | s := WriteStream on: String new. s ensureASpace; nextPut: $a; ensureASpace; ensureASpace. s contents", "' a '"},
		{"skip: past the end is an error", "[ 'abc' readStream skip: 4 ] on: Error do: [ :e | #error ]", "#error"},
		{"a limited stream stops at its limit", "| hit s | hit := false. s := LimitedWriteStream on: String new limit: 3 limitBlock: [ hit := true ]. s nextPutAll: 'abcde'. { s contents. hit }", "#('abc' true)"},
		{"a lowered limit cuts the position", "| hit s | hit := false. s := LimitedWriteStream on: String new. s nextPutAll: 'abcde'; limitBlock: [ hit := true ]; limit: 2. { s contents. s position. hit. s limit }", "#('ab' 2 true 2)"},
		{"streamContents:limitedTo: stops the block at the limit", "| n | n := 0. { String streamContents: [ :s | 10 timesRepeat: [ n := n + 1. s nextPutAll: 'foo' ] ] limitedTo: 9. n. String streamContents: [ :s | s nextPutAll: 'ab' ] limitedTo: 9 }", "#('foofoofoo' 4 'ab')"},
		{"a null stream counts and keeps the last element", "| s | s := NullStream new. s nextPut: $a; nextPutAll: 'bcd'; tab; next: 4 putAll: 'abcdefgh' startingAt: 3. { s position. s peekLast }", "#(9 $f)"},
		{"a write stream cannot read", "[ (WriteStream on: String new) next ] on: Error do: [ :e | #error ]", "#error"},
		{"a read stream cannot write", "[ 'abc' readStream nextPut: $d ] on: Error do: [ :e | #error ]", "#error"},
		{"asByteArray of an Array", "#(97 98 99) asByteArray", "#[97 98 99]"},
		{"the Transcript takes the whole stream protocol", "Transcript show: 'a'; cr; print: 3; tab; nl; crlf; ensureCr; display: 5; << 6; space: 2; clear. Transcript contents", "''"},
		{"a read stream on part of a collection keeps the whole collection's positions", "| s | s := ReadStream on: 'abcdef' from: 3 to: 4. { s position. s next. s upToEnd. s atEnd. s originalContents }", "#(2 $c 'd' true 'abcdef')"},
		{"backUpTo: stops after the occurrence", "| s | s := ReadStream on: 'zabc abdc'. s setToEnd. { s backUpTo: 'abc'. s position. s backUpTo: 'q'. s position }", "#(true 4 false 0)"},
		{"nextDelimited: reads a doubled terminator as one", "'''a''''b'' rest' readStream nextDelimited: $'", "'a''b'"},
		{"skipSeparatorsAndPeekNext and upToAnyOf:do:", "| s r | s := '  x,y' readStream. { s skipSeparatorsAndPeekNext. s upToAnyOf: ',;' do: [ :c | r := c ]. r. s upToEnd }", "#($x 'x' $, 'y')"},
		{"nextMatchAll: stays when the stream does not go on so", "| s | s := 'abcdef' readStream. { s nextMatchAll: 'abd'. s position. s nextMatchAll: 'abc'. s position }", "#(false 0 true 3)"},
		{"binary integers", "| s | s := #[1 2 255 254 0 0 1 0] readStream. { s uint16. s int16. s nextLittleEndianNumber: 4. ByteArray streamContents: [ :w | w uint16: 258; int16: -2; uint32: 1 ] }", "#(258 -2 65536 #[1 2 255 254 0 0 0 1])"},
		{"next:into: answers what was read", "{ 'abcdef' readStream next: 3 into: (String new: 3). 'ab' readStream next: 3 into: (String new: 3) }", "#('abc' 'ab')"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}

// TestCharactersAnswerAsPharo: what Pharo 13's CharacterTest shows.
func TestCharactersAnswerAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"a character that shows prints as a literal", "{ $a printString. $@ printString. $a storeString }", "#('$a' '$@' '$a')"},
		{"a named character prints its name", "{ Character cr printString. Character space printString. (Character value: 0) printString. Character cr storeString }", "#('Character cr' 'Character space' 'Character null' 'Character cr')"},
		{"any other prints its value", "{ (Character value: 17) printString. (Character value: 17) storeString }", "#('Character value: 17' '(Character value: 17)')"},
		{"characters are not made with new", "[ Character new ] on: Error do: [ :e | #error ]", "#error"},
		{"the largest character", "{ (Character value: Character maxVal) codePoint = Character maxVal. [ Character value: Character maxVal + 1 ] on: PrimitiveFailed do: [ :e | #failed ] }", "#(true #failed)"},
		{"hex", "{ $a hex. Character space printStringHex }", "#('16r61' '20')"},
		{"separators", "{ Character separators size. Character separators allSatisfy: [ :c | c isSeparator ]. Character alphabet anySatisfy: [ :c | c isSeparator ] }", "#(5 true false)"},
		{"the byte characters", "{ Character allByteCharacters size. Character allByteCharacters last asInteger }", "#(256 255)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}

// TestStringsAnswerAsPharo: what Pharo 13's string and symbol tests
// (Collections-Strings-Tests) show its strings and symbols answer.
func TestStringsAnswerAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"compare: answers 1, 2 or 3, case ignored", "{ 'EEA' compare: 'fgh'. 'aBc' compare: 'abC'. 'fgh' compare: 'fg'. '!@#' compare: '123'. 'abd' compare: 'abC' }", "#(1 2 3 1 3)"},
		{"compare: puts a Latin-1 letter with its capital", "{ 'éèàôüö' compare: 'ÉÈÀÔÜÖ'. 'ÉÈÀÔÜ' compare: 'ÔÜÖ'. 'eeao' compare: 'éèàô' }", "#(2 1 1)"},
		{"compare:caseSensitive: puts each capital before its small letter", "{ 'abc' compare: 'ABC' caseSensitive: true. 'ABC' compare: 'abc' caseSensitive: true. 'Abc' compare: 'abc' caseSensitive: false }", "#(3 1 2)"},
		{"the case-aware less-or-equal", "{ 'ABC' caseInsensitiveLessOrEqual: 'abc'. 'ABD' caseInsensitiveLessOrEqual: 'abc'. 'abc' caseSensitiveLessOrEqual: 'ABC'. 'aBc' sameAs: 'AbC' }", "#(true false false true)"},
		{"< compares code points", "{ 'abc' < 'abd'. 'B' < 'a'. 'ab' < 'abc'. 'abc' >= 'abc' }", "#(true true true true)"},
		{"the collation orders", "{ String newAsciiOrder size. (String newCaseInsensitiveOrder at: $a asInteger + 1) = $A asInteger. String newCaseSensitiveOrder first: 3 }", "#(256 true #[63 64 65])"},
		{"the case tables", "{ (String newUppercasingTable at: 224) asInteger. (String newLowercasingTable at: 66) . (String newTokenish at: 33) }", "#(7838 $a $~)"},
		{"ß capitalises to ẞ", "'123éàß test' asUppercase", "'123ÉÀẞ TEST'"},
		{"asInteger reads the first run of digits", "{ '1796exportFixes-tkMX' asInteger. 'donald' asInteger. 'abc234def567' asInteger. '-94' asInteger. 'foo-bar-92' asInteger }", "#(1796 nil 234 -94 -92)"},
		{"asCamelCase capitalises each word and drops the spaces", "'Here 123should % be 6 the name6 of the method' asCamelCase", "'Here123should%Be6TheName6OfTheMethod'"},
		{"the empty string is found nowhere", "{ ' ' findString: '' startingAt: 1. 'abc' includesSubstring: ''. 'abc' includesSubstring: '' caseSensitive: false }", "#(0 true false)"},
		{"findString:startingAt: is case-sensitive", "{ 'éèàô' findString: 'ÉÈ' startingAt: 1. 'salkjsdlkgfee' findString: 'ee' startingAt: 3 }", "#(0 12)"},
		{"includesSubstring:caseSensitive:", "{ 'test this string' includesSubstring: 'Ring' caseSensitive: true. 'test this string' includesSubstring: 'Ring' caseSensitive: false. '123éàô' includesSubstring: 'ÀÔ' caseSensitive: false }", "#(false true true)"},
		{"numArgs of a selector", "{ 'x' numArgs. '_x' numArgs. 'at:put:' numArgs. '_:_:' numArgs. '*&@' numArgs. '-' numArgs }", "#(0 0 2 2 1 1)"},
		{"numArgs of what is no selector", "{ 'at:withoutTrailingColon' numArgs. ':x' numArgs. 'x::y:' numArgs. '+ +' numArgs. '123name' numArgs. 'na me:' numArgs. '' numArgs }", "#(-1 -1 -1 -1 -1 -1 -1)"},
		{"keywords", "(#up:to: keywords , #up keywords , #at: keywords)", "#('up:' 'to:' 'up' 'at:')"},
		{"asMutator leaves a keyword as it is", "{ #x asMutator. #x: asMutator }", "#(#x: #x:)"},
		{"a symbol joined with anything is a symbol", "{ #foo , #bar. (#foo , 'bar') == #foobar. ('foo' , #bar) isSymbol }", "#(#foobar true false)"},
		{"a character's value is the character", "{ $a value. $a asInteger. $a < $b }", "#($a 97 true)"},
		{"a range of characters", "($a to: $e) asArray", "#($a $b $c $d $e)"},
		{"tokenish", "{ $a tokenish. $: tokenish. $_ tokenish. $+ tokenish }", "#(true true true false)"},
		{"findTokens: separates once at a run of delimiters", "('  a,b ,,c ' findTokens: ' ,') asArray", "#('a' 'b' 'c')"},
		{"findTokens:escapedBy: keeps empty tokens and quoted delimiters", "('a:b::\"c:d\"' findTokens: ':' escapedBy: '\"') asArray", "#('a' 'b' '' 'c:d')"},
		{"findTokens:escapedBy: reads a doubled quote inside quotes as one", "('this, is, \"\"\"a, test\"' findTokens: $, escapedBy: $\") asArray", "#('this' ' is' ' \"a, test')"},
		{"findTokens:escapedBy: of nothing", "{ ('' findTokens: ',' escapedBy: '\"') size. ('one, two' findTokens: nil escapedBy: nil) size }", "#(0 1)"},
		{"trimming by a block", "{ 'aabbaa' trimBoth: [ :c | c = $a ]. 'aabbaa' trimLeft: [ :c | c = $a ]. 'aabbaa' trimRight: [ :c | c = $a ] }", "#('bb' 'bbaa' 'aabb')"},
		{"substrings splits at every separator", "(String withAll: { $a. Character cr. $b. Character newPage. $c }) substrings", "#('a' 'b' 'c')"},
		{"lines of any ending", "| s | s := 'Fred', String crlf, 'the', String cr, 'Bear', String lf. { s lineCount. s lineNumber: 2. s lineCorrespondingToIndex: 12 }", "#(3 'the' 'Bear')"},
		{"repeat:", "{ '123' repeat: 2. '123' repeat: 0. [ '1' repeat: -1 ] on: Error do: [ :e | #error ] }", "#('123123' '' #error)"},
		{"match: with * and #, case ignored", "{ '*o#' match: 'foo'. 'f*#o' match: 'foo'. '#foo*' match: 'foo'. '*BAZ' match: 'mobaz'. '*foo#zort' match: 'afoo3zortthenfoo3zort' }", "#(true true false true true)"},
		{"charactersExactlyMatching:", "{ 'voiture' charactersExactlyMatching: 'voituze'. 'voiture' charactersExactlyMatching: '' }", "#(5 0)"},
		{"without prefixes and suffixes", "{ 'UMLClass' withoutPrefix: 'UML'. 'UMLClass' withoutSuffix: 'UML'. 'foo.bar.txt' withoutPeriodSuffix. '.' withoutPeriodSuffix. 'bar 123 ' withoutTrailingDigits. ' 123 bar7' withoutLeadingDigits. '\"foo\"' withoutQuoting. '\"foo''' withoutQuoting }", "#('Class' 'UMLClass' 'foo' '.' 'bar' 'bar7' 'foo' '\"foo''')"},
		{"separators compacted or condensed", "| s | s := (String with: Character tab with: Character tab), 'tabs  x ', (String with: Character tab). { s withSeparatorsCompacted. s withBlanksCondensed = 'tabs x' }", "#(' tabs x ' true)"},
		{"internet line endings", "('a', String cr, String lf, 'b', String lf) withInternetLineEndings = ('a', String crlf, 'b', String crlf)", "true"},
		{"translating case in place touches Latin-1 only", "{ '123éàôüÖẞ' copy translateToLowercase. 'ab' copy translateToUppercase }", "#('123éàôüöẞ' 'AB')"},
		{"padding", "{ 'a' padLeftTo: 3. 'a' padRightTo: 3 with: $*. 'abc' padLeftTo: 1 }", "#('  a' 'a**' 'abc')"},
		{"numericSuffix and onlyLetters", "{ 'abc456 789' numericSuffix. '98abc' numericSuffix. 'abc 98 def' onlyLetters }", "#(789 0 'abcdef')"},
		{"normalizeCamelCase", "{ 'TresTristesTigresABC' normalizeCamelCase. 'CamelCase HelloWorld' normalizeCamelCase }", "#('Tres Tristes Tigres ABC' 'Camel Case Hello World')"},
		{"lastSpacePosition", "{ 'fred the bear' lastSpacePosition. 'ziggie' lastSpacePosition }", "#(9 0)"},
		{"skipAnySubstring:startingAt: takes the first delimiter that is there", "{ 'abcdefg' skipAnySubstring: #('abcd' 'abc' 'def' 'g') startingAt: 1. 'abcdefg' skipAnySubstring: #('abc' 'def' 'g' 'abcd') startingAt: 1. ', ab' skipAnySubstring: ' ,' startingAt: 1 }", "#(5 8 3)"},
		{"romanNumber", "{ 'MCMXLII' romanNumber. 'XIV' romanNumber. '-V' romanNumber }", "#(1942 14 -5)"},
		{"trimLineSpaces", "('test ', String cr, ' do ', String cr) trimLineSpaces = ('test', String cr, ' do')", "true"},
		{"a wide string", "{ 'abc' asWideString class == WideString. 'abc' asWideString = 'abc'. ' test ₤' isWideString. 'éàôüÖ' isWideString }", "#(true true true false)"},
		{"storeString doubles quotes", "'Foo''Bar' storeString", "'''Foo''''Bar'''"},
		{"a symbol is made from characters, never with new:", "{ Symbol with: $+. Symbol withAll: 'ab'. Symbol newFrom: #($x $y). Symbol streamContents: [ :s | s nextPutAll: 'cd' ]. [ Symbol new: 3 ] on: Error do: [ :e | #error ] }", "#(#+ #ab #xy #cd #error)"},
		{"a binary symbol prints without quotes", "{ #+ printString. #at:put: printString. #'hello world' printString. #'x::' printString }", "#('#+' '#at:put:' '#''hello world''' '#''x::''')"},
		{"precedence", "{ #abs precedence. #>>> precedence. #abs:y: precedence. #'0' precedence. #':' precedence }", "#(1 2 3 0 0)"},
		{"numArgs: adds with: keywords", "{ #test numArgs: 0. #test numArgs: 2. #test:with: numArgs: 1. #test: numArgs: 3 }", "#(#test #test:with: #test:with: #test:with:with:)"},
		{"asAccessor", "{ #x: asAccessor. #x asAccessor. [ #x:y: asAccessor ] on: Error do: [ :e | #error ]. [ #+ asAccessor ] on: Error do: [ :e | #error ] }", "#(#x #x #error #error)"},
		{"keywordsStrict", "{ #foo:bar: keywordsStrict size. #foo keywordsStrict size. #+ keywordsStrict size }", "#(2 0 0)"},
		{"a symbol sorts into an array", "#cab sorted", "#($a $b $c)"},
		{"endsWithAColon", "{ #fred: endsWithAColon. #fred endsWithAColon }", "#(true false)"},
		{"a character set enumerates in code order", "{ (CharacterSet newFrom: 'cab') asString. String newCSLineEnders asArray = { Character lf. Character cr }. (CharacterSet separators includes: Character tab) }", "#('abc' true true)"},
		{"the complement of a character set", "| s | s := (CharacterSet newFrom: 'ab') complement. { s includes: $a. s includes: $z. s includes: 3 }", "#(false true false)"},
		{"findTokens: with a complement", "('one, two, three' findTokens: (CharacterSet newFrom: 'abcdefghijklmnopqrstuvwxyz') complement) asArray", "#('one' 'two' 'three')"},
		{"beginsWith:caseSensitive: and endsWith:caseSensitive:", "{ 'abc' beginsWith: 'aB' caseSensitive: false. 'abc' beginsWith: 'aB' caseSensitive: true. 'abc' endsWith: 'Bc' caseSensitive: false. 'abc' endsWith: '' caseSensitive: true }", "#(true false true true)"},
		{"endsWithAnyOf: counts the empty suffix", "{ 'test' endsWithAnyOf: #('tests' 't'). 'abc' endsWithAnyOf: #('x' ''). 'abc' endsWithAnyOf: #('x') }", "#(true true false)"},
		{"allRangesOfSubstring:", "{ ('aabbccbb' allRangesOfSubstring: 'bb') size. ('aabbccbb' allRangesOfSubstring: 'bb') last last. ('test' allRangesOfSubstring: '') size }", "#(2 8 0)"},
		{"asHTMLString and asPluralBasedOn:", "{ '<a href=x>&' asHTMLString. 'test' asPluralBasedOn: #(1). 'test' asPluralBasedOn: false. 'test' asPluralBasedOn: 3 }", "#('&lt;a href=x&gt;&amp;' 'test' 'tests' 'tests')"},
		{"copyReplaceAll:with:asTokens: replaces whole words only", "{ 'test te str' copyReplaceAll: 'te' with: 'X' asTokens: true. 'test te str' copyReplaceAll: 'te' with: 'X' asTokens: false }", "#('test X str' 'Xst X str')"},
		{"copyUpToSubstring:", "{ 'abcdef' copyUpToSubstring: 'de'. 'abcdef' copyUpToSubstring: 'gh'. 'abcdef' copyUpToSubstring: '' }", "#('abc' 'abcdef' '')"},
		{"finding substrings and delimiters", "{ 'tester12345' findAnySubstring: #('st' $1) startingAt: 1. 'test12345' findAnySubstring: #('@') startingAt: 1. 'this is a string' findDelimiters: #($a $e $s) startingAt: 5. 'aaa' findLastOccurrenceOfString: 'aa' startingAt: 1 }", "#(3 10 7 2)"},
		{"findBetweenSubstrings:", "('ieaoftaaka' findBetweenSubstrings: #($a)) asArray", "#('ie' 'oft' 'k')"},
		{"findClosing:startingAt: counts nesting", "{ 'Map<T,Map<T,List<T>>>' findClosing: $> startingAt: 4. 'Map<T,Map<T,List<T>>>' findClosing: $> startingAt: 10. '()' findClosing: $) startingAt: 10 }", "#(21 20 0)"},
		{"findTokens:includes: and findWordStart:startingAt:", "{ 'test this' findTokens: 's' includes: 'hi'. 'test this' findTokens: 's' includes: 'HI'. 'test this string' findWordStart: 'st' startingAt: 1 }", "#('t thi' nil 11)"},
		{"format: takes a backslash's next character as it is", "{ '\\{ \\} \\\\ foo {1} bar {2}' format: { 12. 'string' }. '\\{1}{1}' format: { $a }. 'x {bar}' format: (Dictionary with: 'bar' -> 1) }", "#('{ } \\ foo 12 bar string' '{1}a' 'x 1')"},
		{"wide characters", "{ 'te€st' indexOfWideCharacterFrom: 1 to: 5. 'test' hasWideCharacterFrom: 1 to: 4. 'éÀ' isAsciiString. '123éàôüÖẞ' indexOfFirstUppercaseCharacter }", "#(3 false false 8)"},
		{"initialIntegerOrNil", "{ '234Whoopie' initialIntegerOrNil. '  89Ten ' initialIntegerOrNil. '78 92' initialIntegerOrNil }", "#(234 nil 78)"},
		{"isAllAlphaNumerics and occursInWithEmpty:caseSensitive:", "{ '123éàôüÖẞ' isAllAlphaNumerics. ' 234 ' isAllAlphaNumerics. 'abc98def' occursInWithEmpty: 'Abc' caseSensitive: false. 'abc98def' occursInWithEmpty: 'Abc' caseSensitive: true }", "#(true false true false)"},
		{"internal line endings are cr", "('a', String crlf, 'b', String lf) withInternalLineEndings = ('a', String cr, 'b', String cr)", "true"},
		{"punctuation is brackets only", "{ $( isPunctuation. $] isPunctuation. $. isPunctuation. $, isPunctuation. $+ isSpecial }", "#(true true false false true)"},
		{"Unicode value:", "(Unicode value: 402) asInteger", "402"},
		{"expandMacros", "{ ('<1p>: <2p>' expandMacrosWith: 'Number' with: 5). ('<1s>' expandMacrosWithArguments: { 'str''ing' }). ('<1?success:error>' expandMacrosWith: true). ('<1?success:error>' expandMacrosWith: false). '%<' expandMacros. '<t>' expandMacros = (String with: Character tab) }", "#('''Number'': 5' 'str''ing' 'success' 'error' '<' true)"},
		{"withNoLineLongerThan: wraps at words", "{ ('Hello World' withNoLineLongerThan: 5) = ('Hello', String cr, 'World'). [ 'x' withNoLineLongerThan: 0 ] on: Error do: [ :e | #error ] }, ('Sample text to line break at some point' withNoLineLongerThan: 28) lines, ('in silence' withNoLineLongerThan: 5) lines", "#(true #error 'Sample text to line break at' 'some point' 'in' 'silen' 'ce')"},
		{"findFirstInString:inSet:startingAt:", "{ String findFirstInString: 'hello' inSet: (CharacterSet newFrom: 'llo') byteArrayMap startingAt: 1. String findFirstInString: 'hello' inSet: (CharacterSet newFrom: 'x') byteArrayMap startingAt: 1 }", "#(3 0)"},
		{"a new string holds NUL characters", "{ (String new: 2) first asInteger. (String new: 2) = '  ' }", "#(0 false)"},
		{"UTF-8", "{ 'héllo' utf8Encoded. #[104 195 169] utf8Decoded. [ #[255] utf8Decoded ] on: Error do: [ :e | #error ] }", "#(#[104 195 169 108 108 111] 'hé' #error)"},
		{"contracting and truncating", "{ 'Pharo is really super cool' contractTo: 10. 'A clear but rather long-winded summary' contractTo: 18. 'abcd' contractTo: 10. 'hello world' truncateTo: 5. 'hello world' truncateWithElipsisTo: 8 }", "#('Phar...ool' 'A clear ...summary' 'abcd' 'hello' 'hello...')"},
		{"stemAndNumericSuffix", "{ 'Fred2305' stemAndNumericSuffix first. 'Fred2305' stemAndNumericSuffix last. 'a' stemAndNumericSuffix last }", "#('Fred' 2305 0)"},
		{"wordBefore:, howManyMatch:, escapeCharacter:", "{ 'word before index' wordBefore: 16. 'word before index' wordBefore: 5. 'ab ab ac de' howManyMatch: 'ab'. 'XaX' escapeCharacter: $X. 'XXaXX' unescapeCharacter: $X }", "#('inde' '' 2 'XXaXX' 'XaX')"},
		{"findTokens:keep:", "('a,b;c' findTokens: ',;' keep: ';') asArray", "#('a' 'b' ';' 'c')"},
		{"a few predicates", "{ '  ' isAllSeparators. '0abc' startsWithDigit. 'Foo_1' isValidGlobalName. 'foo' isValidGlobalName. 'AA' asHex }", "#(true true true false '16r4116r41')"},
		{"Unicode categories of a character", "{ $+ isMathSymbol. $$ isCurrencySymbol. $_ isConnectorPunctuation. $a isMathSymbol. (Character value: 160) isSpaceSeparator. $5 isDecimalDigit }", "#(true true true false true true)"},
		{"hexDigitValue", "{ $f hexDigitValue. $F hexDigitValue. $7 hexDigitValue. $g hexDigitValue }", "#(15 15 7 nil)"},
		{"separateKeywords and isInfix", "{ #foo:zork: separateKeywords. #+ isInfix. #foo isInfix }", "#('foo:  zork:' true false)"},
		{"alike:", "{ 'abc' alike: 'abc'. 'action' alike: 'actions'. 'action' alike: 'caption'. 'action' alike: 'name'. 'TEST' alike: 'test'. 'eeeee' alike: 'ééééé' }", "#(7 7 5 0 9 1)"},
		{"writeStreamDo:", "(String new: 3) writeStreamDo: [ :s | s nextPutAll: 'ab'. s contents ]", "'ab'"},
		{"only a single binary character prints as a literal symbol", "#(#++ #-> #foo:bar #_x #a1 #| #été) collect: [ :s | s printString ]", "#('#''++''' '#''->''' '#''foo:bar''' '#_x' '#a1' '#|' '#été')"},
		{"asValidSelector", "{ '234znak ::x43 ''åå) _ : 2' asValidSelector. 'Foo bar:' asValidSelector. '' asValidSelector }", "#(#'v234znak:x43:v2' #foobar: #v)"},
		{"asComment", "#('' 'abc' 'abc\"abc' 'abc\"\"abc' '\"abc abc\"' '\"\"\"') collect: [ :s | s asComment ]", "#('\"\"' '\"abc\"' '\"abc\"\"abc\"' '\"abc\"\"abc\"' '\"abc abc\"' '\"\"\"\"')"},
		{"byteAt:", "| s | s := 'abc' copy. s byteAt: 1 put: 122. { s byteAt: 2. s }", "#(98 'zbc')"},
		{"correctAgainst: ranks by alike:, the last met first among equals", "| coll | coll := #('nest' 'temperature' 'text' 'Jupiter' 'denial' 'nest' 'tttt' 'e' 'alpha' 'beautest'). ('test' correctAgainst: coll) asArray, ('123' correctAgainst: coll) asArray, ('test' correctAgainst: #()) asArray", "#('beautest' 'nest' 'text' 'nest' 'tttt' 'temperature' 'tttt' 'nest' 'text' 'nest')"},
		{"isPatternVariable", "{ '`pattern' isPatternVariable. 'pattern:`varible:' isPatternVariable. 'notAPattern:varible:' isPatternVariable }", "#(true true false)"},
		{"loremIpsum", "| t | t := String loremIpsum: 2048. { (String loremIpsum beginsWith: 'Lorem ipsum'). (String loremIpsum endsWith: 'laborum.'). t size. (t endsWith: '.', String cr). t lines size > 2. t isAsciiString }", "#(true true 2048 true true true)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}

// TestRegexAnswersAsPharo: what Pharo 13's regular expression tests
// (Regex-Core-Tests) show its matcher answers, on the kernel's matcher
// over Go's regexp.
func TestRegexAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"matchesRegex: matches the whole string", "{ 'abc' matchesRegex: 'a.c'. 'abcd' matchesRegex: 'a.c'. 'abcd' prefixMatchesRegex: 'a.c'. 'ABC' matchesRegexIgnoringCase: 'abc' }", "#(true false true true)"},
		{". is any character but NUL, a line ending too", "{ (String with: $a with: Character cr with: $b) matchesRegex: 'a.b'. (String with: $a with: (Character value: 0) with: $b) matchesRegex: 'a.b' }", "#(true false)"},
		{"subexpressions", "| m | m := '(a+)(b*)(x)?' asRegex. { m search: 'xxaab'. m subexpression: 1. m subexpression: 2. m subexpression: 3. m subexpression: 4. m subexpressionCount }", "#(true 'aab' 'aa' 'b' nil 4)"},
		{"all the matches", "('now is the time' allRegexMatches: '\\w+') asArray", "#('now' 'is' 'the' 'time')"},
		{"copying with the matches replaced", "{ 'aabbcc' copyWithRegex: 'b+' matchesReplacedWith: 'X'. 'aabbcc' copyWithRegex: 'b+' matchesTranslatedUsing: [ :each | each size printString ] }", "#('aaXcc' 'aa2cc')"},
		{"matching ranges", "('aabbcab' allRangesOfRegexMatches: 'ab') inject: #() into: [ :all :each | all , { each first. each last } ]", "#(2 3 6 7)"},
		{"a message predicate", "{ 'aei' matchesRegex: ':isVowel:+'. 'xyz' matchesRegex: ':isVowel:+'. 'xyz' matchesRegex: ':^isVowel:+' }", "#(true false true)"},
		{"a predicate's class is its characters, never a range", "{ '+' matchesRegex: ':isSpecial:'. '/' matchesRegex: ':isSpecial:'. '.' matchesRegex: ':isSpecial:' }", "#(true true false)"},
		{"quantifiers with braces", "{ 'aa' matchesRegex: 'a{2}'. 'aaa' matchesRegex: 'a{2}'. '' matchesRegex: '(ab){,1}'. 'abab' matchesRegex: '(ab){,1}' }", "#(true false true false)"},
		{"what Pharo's parser refuses", "#('(a*)*' 'a*?' '()*' '^*' '(a|)*' 'a[a-b-c]' '(a' ) collect: [ :each | RxParser safelyParse: each ]", "#(nil nil nil nil nil nil nil)"},
		{"what this matcher lacks is a syntax error", "{ [ 'x' matchesRegex: '(?!a).*' ] on: RegexSyntaxError do: [ :e | #unsupported ]. [ 'x' matchesRegex: '\\<' ] on: RegexSyntaxError do: [ :e | #unsupported ] }", "#(#unsupported #unsupported)"},
		// RxMatchOptimizer: a nullable pattern may start a match where a line ends; the empty pattern nowhere else
		{"the empty pattern matches where a line ends", "{ '' asRegex copy: 'volcano' replacingMatchesWith: 's'. '' asRegex copy: 'ab' , (String with: Character cr) , 'c' replacingMatchesWith: '-'. ('' asRegex matchesIn: 'abc') size }", "#('volcanos' 'ab-\rc-' 1)"},
		// SingularizePluralize's rules: a group whose alternatives each end in a word character, then \>
		{"the end of a word after a group of words", "{ 'matrix' matchesRegex: '.*(matr|vert|ind)(ix|ex)\\>'. 'status quo' prefixMatchesRegex: '.*(alias|status)\\>'. 'statusquo' prefixMatchesRegex: '(alias|status)\\>' }", "#(true true false)"},
		{"a group with an alternative that may end elsewhere is refused", "[ 'ab' matchesRegex: '(ab|c*)\\>' ] on: RegexSyntaxError do: [ :e | #refused ]", "#refused"},
		{"the start and end of a word next to a word character", "{ 'foo bar' copyWithRegex: '\\<b' matchesReplacedWith: '*'. 'fooa bar' prefixMatchesRegex: 'fooa\\>.*'. 'fooab' prefixMatchesRegex: 'fooa\\>.*' }", "#('foo *ar' true false)"},
		{"$ ends a line before cr, lf or cr lf", "#(13 10) collect: [ :code | ('a', (String with: (Character value: code)), 'b') copyWithRegex: '$' matchesReplacedWith: '*' ]", "#('a*\rb*' 'a*\nb*')"},
		{"$ between the cr and lf of a line ending is no line end", "(('a', String crlf, 'b') copyWithRegex: '$' matchesReplacedWith: '*') = ('a*', String crlf, 'b*')", "true"},
		{"escapes: \\r is a cr, \\n an lf, \\e the escape character", "{ (String with: $a with: Character cr with: $b) matchesRegex: 'a\\rb'. (String with: $a with: Character cr with: $b) matchesRegex: 'a\\nb'. (String with: $a with: (Character value: 27)) matchesRegex: 'a\\e' }", "#(true false true)"},
		{"^ starts each line, after a cr too", "(('ab', String cr, 'cd', String lf, 'ef') allRegexMatches: '^\\w') asArray", "#('a' 'c' 'e')"},
		{"a word character is a letter of any script, a digit or _", "{ 'été' matchesRegex: '\\w+'. 'a-b' matchesRegex: '\\w\\W\\w'. 'é-' matchesRegex: '[\\w-]+'. 'ab' matchesRegex: '\\W+' }", "#(true true true false)"},
		{"splitOn: a matcher", "('foobar' splitOn: '[aeiou]+' asRegex) asArray", "#('f' 'b' 'r')"},
		{"a matcher on a stream", "{ '\\w+' asRegex matchesStream: 'now' readStream. '\\w+' asRegex matchesStream: 'now is' readStream }, ('\\w+' asRegex matchesOnStream: 'a b' readStream) asArray", "#(true false 'a' 'b')"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}
