import RepeaterLines
import Testing

@Suite("JSON lines")
struct JSONLinesReaderTests {
    @Test("the writer's JSON, hand-edited: reordered, unknown keys, escapes, no index")
    func edited() throws {
        let text = """
        [
          {"index":2,"start_s":4.5,"end_s":6,"text":"Second \\"quoted\\"\\nline two","speaker":{"name":"Ana","tags":[1,true,null]}},
          { "start_s" : 1.25 , "end_s" : 3.000 , "text" : "caf\\u00e9 \\ud83d\\ude00" }
        ]
        """
        expectSame(try read(text, "lines.json"), [line(1.25, 3, "café 😀"), line(4.5, 6, "Second \"quoted\"\nline two")])
        #expect(try read("[]", "empty.json").isEmpty)
    }

    @Test("errors name the file and the line", arguments: [
        ("[\n  {\"start_s\":1,\"end_s\":2,\"text\":\"a\"}\n  {\"start_s\":3,\"end_s\":4}\n]",
         "'lines.json' line 3: expected ',' or ']' after a line, found '{\"start_s\":3,\"end_s\":4}'"),
        ("[\n  {\"start_s\":5,\"end_s\":2,\"text\":\"a\"}\n]",
         "'lines.json' line 2: the line ends (2.000) before it starts (5.000): swap or correct the times"),
        ("[\n  {\"start_s\":\"1.0\",\"end_s\":2}\n]",
         "'lines.json' line 2: 'start_s' must be a number of seconds, 0 or more, found '\"1.0\",\"end_s\":2}'"),
        ("[\n  {\"end_s\":2,\n \"text\":\"a\"}\n]", "'lines.json' line 2: a line needs both 'start_s' and 'end_s'"),
        ("[\n  {\"start_s\":1,\"end_s\":2,\"text\":\"unterminated}\n]",
         "'lines.json' line 2: a string runs past the end of its line: a '\"' is missing"),
        ("{\"start_s\":1}", "'lines.json' line 1: expected '[' (a JSON list of lines such as [{\"start_s\":1.0,\"end_s\":2.5,\"text\":\"…\"}]), found '{\"start_s\":1}'"),
        ("[{\"start_s\":1,\"end_s\":2,\"x\":" + String(repeating: "[", count: 40) + "]",
         "'lines.json' line 1: JSON nested deeper than 32 levels"),
    ])
    func errors(text: String, message: String) {
        #expect(errorMessage(text, "lines.json") == message)
    }
}
