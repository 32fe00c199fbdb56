// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatConfTest {

    private static final String GOOD = "good0 u1.2 threadsafe default loopback dapl.1.2 \"\" \"\"";

    private static DatConf parse(String text) {
        return DatConf.parse("test.conf", new StringReader(text));
    }

    @Test
    void parsesEveryFieldOfAnEntry() {
        DatConf conf = parse("ofa-v2-ib0 u1.2 nonthreadsafe nondefault my.vendor.Verbs ofa.2.0 \"mlx5_0 1\" plat\n");
        assertEquals(List.of(), conf.diagnostics());
        DatConf.Entry e = conf.entries().getFirst();
        assertAll(
                () -> assertEquals("ofa-v2-ib0", e.iaName()),
                () -> assertEquals(new DatConf.Version("u", 1, 2), e.apiVersion()),
                () -> assertFalse(e.threadSafe()),
                () -> assertFalse(e.isDefault()),
                () -> assertEquals("my.vendor.Verbs", e.library()),
                () -> assertEquals(new DatConf.Version("ofa", 2, 0), e.providerVersion()),
                () -> assertEquals("mlx5_0 1", e.iaParams()),
                () -> assertEquals("plat", e.platformParams()),
                () -> assertEquals(1, e.line()),
                () -> assertFalse(e.isKernel()));
    }

    @Test
    void threadsafeDefaultAndKernelEntries() {
        DatConf.Entry e = parse("k0 k1.1 threadsafe default loopback dapl.1.2 a b").entries().getFirst();
        assertTrue(e.threadSafe());
        assertTrue(e.isDefault());
        assertTrue(e.isKernel());
        assertEquals(new DatConf.Version("k", 1, 1), e.apiVersion());
    }

    @Test
    void quotedFieldsHoldSpacesHashesEscapesAndNothing() {
        DatConf conf = parse("\"ia 0\" u1.2 threadsafe default loopback dapl.1.2 \"a # b \\\"q\\\" c\\\\d\" \"\"");
        assertEquals(List.of(), conf.diagnostics());
        DatConf.Entry e = conf.entries().getFirst();
        assertEquals("ia 0", e.iaName());
        assertEquals("a # b \"q\" c\\d", e.iaParams());
        assertEquals("", e.platformParams());
    }

    @Test
    void backslashOutsideQuotesIsLiteral() {
        DatConf.Entry e = parse("w0 u1.2 threadsafe default loopback dapl.1.2 C:\\dat\\x \"\"").entries().getFirst();
        assertEquals("C:\\dat\\x", e.iaParams());
    }

    @Test
    void commentsBlankLinesTabsCrlfAndTrailingWhitespace() {
        String text = """
                # a comment\r
                   \r
                \r
                a0\tu1.2  threadsafe default loopback dapl.1.2 "" ""   # trailing comment\r
                b0 u1.2 threadsafe default loopback dapl.1.2 x y \t \r
                c0 u1.2 threadsafe default loopback dapl.1.2 x y#glued comment""";
        DatConf conf = parse(text);
        assertEquals(List.of(), conf.diagnostics());
        assertEquals(List.of("a0", "b0", "c0"), conf.entries().stream().map(DatConf.Entry::iaName).toList());
        assertEquals(List.of(4, 5, 6), conf.entries().stream().map(DatConf.Entry::line).toList());
        assertEquals("y", conf.entries().get(1).platformParams(), "no \\r or blank kept at the end of a line");
        assertEquals("y", conf.entries().get(2).platformParams());
    }

    @Test
    void emptyFileHasNothing() {
        DatConf conf = parse("");
        assertEquals(List.of(), conf.entries());
        assertEquals(List.of(), conf.diagnostics());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            7 fields           | x0 u1.2 threadsafe default loopback dapl.1.2 ""                  | expected 8 fields
            9 fields           | x0 u1.2 threadsafe default loopback dapl.1.2 "" "" extra         | found 9
            unterminated quote | x0 u1.2 threadsafe default loopback dapl.1.2 "" "abc             | unterminated quote opened at column 49
            bad escape         | x0 u1.2 threadsafe default loopback dapl.1.2 "a\\nb" ""           | bad escape \\n
            quote in field     | x0 u1.2 threadsafe default loop"back dapl.1.2 "" ""              | unexpected quote at column 32
            glued after quote  | x0 u1.2 threadsafe default "loopback"x dapl.1.2 "" ""            | unexpected 'x' at column 38
            api without kind   | x0 1.2 threadsafe default loopback dapl.1.2 "" ""                | bad api_version '1.2'
            api not numeric    | x0 ux.y threadsafe default loopback dapl.1.2 "" ""               | bad api_version 'ux.y'
            api without minor  | x0 u1 threadsafe default loopback dapl.1.2 "" ""                 | bad api_version 'u1'
            api major 2        | x0 u2.0 threadsafe default loopback dapl.1.2 "" ""               | api_version u2.0 is not supported: jDAT implements DAT 1.2
            thread safety      | x0 u1.2 threadSafe default loopback dapl.1.2 "" ""               | bad thread_safety 'threadSafe': expected threadsafe or nonthreadsafe
            default keyword    | x0 u1.2 threadsafe yes loopback dapl.1.2 "" ""                   | bad default 'yes': expected default or nondefault
            provider version   | x0 u1.2 threadsafe default loopback dapl1.2 "" ""                | bad provider_version 'dapl1.2'
            empty ia name      | "" u1.2 threadsafe default loopback dapl.1.2 "" ""               | empty ia_name
            empty library      | x0 u1.2 threadsafe default "" dapl.1.2 "" ""                     | empty library
            """)
    void malformedLineIsSkippedWithFileLineAndFault(String what, String line, String expected) {
        DatConf conf = parse(GOOD + "\n" + line + "\n" + GOOD.replace("good0", "good1"));
        assertEquals(List.of("good0", "good1"), conf.entries().stream().map(DatConf.Entry::iaName).toList(),
                "the lines around a bad one still count");
        assertEquals(1, conf.diagnostics().size(), () -> conf.diagnostics().toString());
        DatConf.Diagnostic d = conf.diagnostics().getFirst();
        assertEquals(2, d.line());
        assertTrue(d.message().contains(expected), () -> d.message());
        assertTrue(d.toString().startsWith("test.conf:2: "), d::toString);
        assertTrue(d.message().endsWith("; line skipped"), d::message);
    }

    @Test
    void iaNameLengthLimitIs256() {
        String ok = "a".repeat(256);
        String tooLong = "b".repeat(257);
        DatConf conf = parse(GOOD.replace("good0", ok) + "\n" + GOOD.replace("good0", tooLong));
        assertEquals(List.of(ok), conf.entries().stream().map(DatConf.Entry::iaName).toList());
        assertTrue(conf.diagnostics().getFirst().message().contains("257 characters long; at most 256"),
                () -> conf.diagnostics().toString());
    }

    @Test
    void duplicateIaNameFirstWins() {
        DatConf conf = parse(GOOD + "\n# other\n" + GOOD.replace("loopback", "other"));
        assertEquals(1, conf.entries().size());
        assertEquals("loopback", conf.entries().getFirst().library());
        DatConf.Diagnostic d = conf.diagnostics().getFirst();
        assertEquals(3, d.line());
        assertEquals("test.conf:3: duplicate IA name good0: already defined on line 1; this entry is ignored",
                d.toString());
    }

    @Test
    void malformedFirstOccurrenceDoesNotBlockALaterGoodOne() {
        DatConf conf = parse("good0 u2.0 threadsafe default loopback dapl.1.2 \"\" \"\"\n" + GOOD);
        assertEquals(2, conf.entries().getFirst().line());
        assertEquals(1, conf.diagnostics().size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            NUL in ia_name       | nul\\u00000 | loopback    | U+0000
            BOM before ia_name   | \\uFEFFbom0 | loopback    | U+FEFF
            escape in ia_name    | esc\\u001B[31m0 | loopback | U+001B
            bidi override        | ia\\u202E0  | loopback    | U+202E
            line separator       | ia\\u20280  | loopback    | U+2028
            escape in library    | lib0       | loop\\u001Bback | U+001B
            zero width in library | lib1      | loop\\u200Bback | U+200B
            """)
    void namesWithControlFormatOrBomCharactersAreRejectedByCodePoint(String what, String iaName, String library,
                                                                    String codePoint) {
        String line = "\"" + unescape(iaName) + "\" u1.2 threadsafe default \"" + unescape(library)
                + "\" dapl.1.2 \"\" \"\"";
        DatConf conf = parse(GOOD + "\n" + line + "\n" + GOOD.replace("good0", "good1"));
        assertEquals(List.of("good0", "good1"), conf.entries().stream().map(DatConf.Entry::iaName).toList());
        assertEquals(1, conf.diagnostics().size(), () -> conf.diagnostics().toString());
        DatConf.Diagnostic d = conf.diagnostics().getFirst();
        assertEquals(2, d.line());
        assertTrue(d.message().contains(codePoint), d::message);
        HostileProviderTest.assertPrintable(d.toString());
    }

    @Test
    void aControlCharacterInParametersIsRejectedToo() {
        DatConf conf = parse("p0 u1.2 threadsafe default loopback dapl.1.2 \"size=1\u0000\" \"\"\n" + GOOD);
        assertEquals(List.of("good0"), conf.entries().stream().map(DatConf.Entry::iaName).toList());
        assertTrue(conf.diagnostics().getFirst().message().contains("U+0000"), () -> conf.diagnostics().toString());
    }

    private static String unescape(String text) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            if (text.startsWith("\\u", i)) {
                sb.append((char) Integer.parseInt(text.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                sb.append(text.charAt(i));
            }
        }
        return sb.toString();
    }
}
