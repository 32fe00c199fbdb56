// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static dat.registry.DatQuery.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatIovOwnership;
import dat.api.DatReturn;
import dat.spi.DatIaInfo;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DatQueryTest {

    /** An IA with SRQ, recv-info bit 0x01 only, alignment 256, 2 IOV segments, 1 MiB messages. */
    private static final DatIaInfo SAMPLE = Fixtures.ia("loopback0", "loopback",
            p -> p.srqSupported(true).epRecvInfoSupported(0x01).optimalBufferAlignment(256)
                    .iovOwnershipOnReturn(DatIovOwnership.CONSUMER).lmrSyncReq(false).maxPrivateDataSize(64),
            i -> i.maxIovSegmentsPerDto(2).maxMessageSize(1L << 20).maxRdmaSize(1L << 30).maxRmrs(-2));

    private static boolean test(String query) {
        return DatQuery.parse(query).test(SAMPLE);
    }

    private static List<String> explain(String query) {
        return DatQuery.parse(query).explain(SAMPLE);
    }

    private static DatQuerySyntaxException syntaxError(String query) {
        return assertThrows(DatQuerySyntaxException.class, () -> DatQuery.parse(query));
    }

    @Nested
    class TheIssueExamples {

        @ParameterizedTest
        @ValueSource(strings = {
            "srq_supported && (ep_recv_info_supported & 0x10) != 0 && optimal_buffer_alignment <= 256",
            "srq_supported && ep_recv_info_supported & 0x10 && optimal_buffer_alignment <= 256",
            "max_iov_segments_per_dto >= 4 || !srq_supported",
            "provider_name == \"loopback\"",
            "ia_name == 'loopback0'",
            "iov_ownership_on_return == CONSUMER",
            "max_message_size >= 1m"})
        void parseAndPrintBackToAnEqualQuery(String text) {
            DatQuery query = DatQuery.parse(text);
            assertEquals(query, DatQuery.parse(query.toString()), query::toString);
        }

        @Test
        void evaluateAsExpectedOnTheSample() {
            assertFalse(test("srq_supported && (ep_recv_info_supported & 0x10) != 0"
                    + " && optimal_buffer_alignment <= 256"));
            assertTrue(test("srq_supported && (ep_recv_info_supported & 0x01) != 0"
                    + " && optimal_buffer_alignment <= 256"));
            assertFalse(test("srq_supported && ep_recv_info_supported & 0x10 && optimal_buffer_alignment <= 256"));
            assertTrue(test("srq_supported && ep_recv_info_supported & 0x1 && optimal_buffer_alignment <= 256"));
            assertFalse(test("max_iov_segments_per_dto >= 4 || !srq_supported"));
            assertTrue(test("max_iov_segments_per_dto >= 2 || !srq_supported"));
            assertTrue(test("provider_name == \"loopback\""));
            assertTrue(test("ia_name == 'loopback0'"));
            assertTrue(test("iov_ownership_on_return == CONSUMER"));
            assertTrue(test("max_message_size >= 1m"));
            assertFalse(test("max_message_size > 1m"));
        }
    }

    @Nested
    class Operators {

        @ParameterizedTest(name = "{0} is {1}")
        @CsvSource(delimiter = ';', textBlock = """
                max_iov_segments_per_dto == 2 ; true
                max_iov_segments_per_dto == 3 ; false
                max_iov_segments_per_dto != 2 ; false
                max_iov_segments_per_dto != 3 ; true
                max_iov_segments_per_dto < 2  ; false
                max_iov_segments_per_dto < 3  ; true
                max_iov_segments_per_dto <= 2 ; true
                max_iov_segments_per_dto <= 1 ; false
                max_iov_segments_per_dto > 1  ; true
                max_iov_segments_per_dto > 2  ; false
                max_iov_segments_per_dto >= 2 ; true
                max_iov_segments_per_dto >= 3 ; false
                2 < max_iov_segments_per_dto  ; false
                srq_supported == true         ; true
                srq_supported != true         ; false
                srq_supported == lmr_sync_req ; false
                !srq_supported                ; false
                !lmr_sync_req                 ; true
                !!srq_supported               ; true
                !max_iov_segments_per_dto     ; false
                max_iov_segments_per_dto      ; true
                ep_recv_info_supported | 0x10 == 0x11 ; true
                ep_recv_info_supported & 0x10 == 0    ; true
                (ep_recv_info_supported | 0x10) & 0x10 ; true
                true                          ; true
                false || srq_supported        ; true
                lmr_sync_req && srq_supported ; false
                max_rmrs == -2                ; true
                max_rmrs < -1                 ; true
                ia_name != "loopback1"        ; true
                """)
        void evaluate(String query, boolean expected) {
            assertEquals(expected, test(query), query);
        }

        @Test
        void andBindsTighterThanOr() {
            // srq || (lmr && false) is true; (srq || lmr) && false would be false.
            assertTrue(test("srq_supported || lmr_sync_req && false"));
            assertFalse(test("(srq_supported || lmr_sync_req) && false"));
            assertEquals("srq_supported || lmr_sync_req && false",
                    DatQuery.parse("srq_supported || (lmr_sync_req && false)").toString());
        }

        @Test
        void bitwiseBindTighterThanComparisonAndAndTighterThanOr() {
            // 0x01 | (0x10 & 0x10) == 0x11; (0x01 | 0x10) & 0x10 == 0x10.
            assertTrue(test("ep_recv_info_supported | 0x10 & 0x10 == 0x11"));
            assertTrue(test("(ep_recv_info_supported | 0x10) & 0x10 == 0x10"));
            assertEquals("(ep_recv_info_supported | 0x10 & 0x10) == 0x11",
                    DatQuery.parse("ep_recv_info_supported | 0x10 & 0x10 == 0x11").toString());
            assertEquals("((ep_recv_info_supported | 0x10) & 0x10) == 0x10",
                    DatQuery.parse("(ep_recv_info_supported | 0x10) & 0x10 == 0x10").toString());
        }

        @Test
        void notBindsTighterThanAnything() {
            assertFalse(test("!srq_supported && true"));
            assertEquals("!(srq_supported && true)", DatQuery.parse("!(srq_supported && true)").toString());
        }

        @ParameterizedTest(name = "{0} = {1}")
        @CsvSource(delimiter = '|', textBlock = """
                1k         | 1024
                4K         | 4096
                1m         | 1048576
                2M         | 2097152
                1g         | 1073741824
                0x10       | 16
                0X1f       | 31
                0x1k       | 1024
                -2         | -2
                9223372036854775807 | 9223372036854775807
                """)
        void integerLiterals(String literal, long value) {
            DatIaInfo ia = Fixtures.ia("x", "p", p -> p, i -> i.maxMessageSize(value));
            assertTrue(DatQuery.parse("max_message_size == " + literal).test(ia), literal);
            assertFalse(DatQuery.parse("max_message_size != " + literal).test(ia), literal);
        }

        @Test
        void stringsAndEscapes() {
            DatIaInfo ia = Fixtures.ia("it's \"x\"\\", "p");
            assertTrue(DatQuery.parse("ia_name == 'it\\'s \"x\"\\\\'").test(ia));
            assertTrue(DatQuery.parse("ia_name == \"it's \\\"x\\\"\\\\\"").test(ia));
            DatQuery printed = DatQuery.parse("ia_name == 'it\\'s \"x\"\\\\'");
            assertEquals("ia_name == \"it's \\\"x\\\"\\\\\"", printed.toString());
            assertTrue(DatQuery.parse(printed.toString()).test(ia));
        }

        @Test
        void enumsCompareByNameBareOrQuoted() {
            assertTrue(test("iov_ownership_on_return == \"CONSUMER\""));
            assertTrue(test("iov_ownership_on_return != PROVIDER_MOD"));
            assertFalse(test("iov_ownership_on_return == PROVIDER_NOMOD"));
            assertTrue(test("PROVIDER_MOD != iov_ownership_on_return"));
        }

        @Test
        void everyAttributeOfTheRecordsIsKnown() {
            List<String> names = DatQuery.attributeNames();
            assertEquals("ia_name", names.getFirst());
            assertTrue(names.containsAll(List.of("provider_name", "srq_supported", "max_message_size",
                    "iov_ownership_on_return", "max_iov_segments_per_dto", "vendor_attr")));
            assertEquals(names.size(), names.stream().distinct().count());
        }

        @Test
        void iaAddressComparesAsText() {
            assertTrue(test("ia_address_ptr == \"127.0.0.1\""));
        }
    }

    @Nested
    class Errors {

        @Test
        void syntaxErrorShowsQueryCaretAndExpectation() {
            DatQuerySyntaxException e = syntaxError("srq_supported && && x");
            assertEquals(18, e.column());
            assertEquals("srq_supported && && x", e.query());
            assertTrue(e.reason().startsWith("column 18: expected an attribute, a literal, '!' or '(' but found '&&'"),
                    e::reason);
            assertTrue(e.getMessage().endsWith("\n  srq_supported && && x\n                   ^"), e::getMessage);
            assertInstanceOf(DatException.class, e);
            assertEquals(DatReturn.INVALID_PARAMETER, e.type());
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
                ``                                    | 1  | but found the end of the query
                srq_supported &&                      | 17 | but found the end of the query
                (srq_supported                        | 15 | expected ')' to close the '(' at column 1
                srq_supported)                        | 14 | expected an operator or the end of the query but found ')'
                srq_supported srq_supported           | 15 | but found 'srq_supported'
                max_rmrs = 2                          | 10 | unexpected '='; use == to compare
                1 < max_rmrs < 4                      | 14 | comparisons do not chain
                ia_name == "abc                       | 12 | unterminated string
                ia_name == "a\\qb"                    | 14 | bad escape \\q
                max_rmrs > 12x                        | 14 | unexpected 'x' in a number
                max_rmrs > 0x                         | 14 | expected hexadecimal digits after 0x
                max_rmrs > 99999999999g               | 12 | does not fit in 64 bits
                max_rmrs > - x                        | 14 | expected a number after '-'
                srq_supported @ 1                     | 15 | expected an operator or the end of the query but found '@'
                srq_supported < 3                     | 15 | < needs integers, but srq_supported is a boolean
                srq_supported & 1                     | 15 | & needs integers, but srq_supported is a boolean
                srq_supported == 1                    | 15 | cannot compare srq_supported (a boolean) with 1 (an integer)
                provider_name == 1                    | 15 | cannot compare provider_name (a string) with 1 (an integer)
                provider_name                         | 1  | a query must be a condition, but provider_name is a string
                !provider_name                        | 2  | ! needs a condition, but provider_name is a string
                srq_supported && ia_name              | 18 | && needs a condition, but ia_name is a string
                transport_attr == 1                   | 1  | transport_attr is a map of strings
                iov_ownership_on_return == CONSUMR    | 28 | CONSUMR is not a value of iov_ownership_on_return; expected one of CONSUMER, PROVIDER_NOMOD, PROVIDER_MOD; did you mean CONSUMER?
                iov_ownership_on_return == 1          | 25 | cannot compare iov_ownership_on_return (an enum) with 1 (an integer)
                iov_ownership_on_return < CONSUMER    | 25 | < needs integers
                """)
        void errorsPointAtTheColumn(String query, int column, String expected) {
            DatQuerySyntaxException e = syntaxError(query);
            assertTrue(e.reason().contains(expected), () -> "reason: " + e.reason());
            assertEquals(column, e.column(), e::getMessage);
            assertTrue(e.reason().startsWith("column " + column + ": "), e::reason);
            String[] lines = e.getMessage().split("\n", -1);
            assertEquals(3, lines.length, e::getMessage);
            assertEquals("  " + query, lines[1]);
            assertEquals(" ".repeat(column + 1) + "^", lines[2]);
        }

        @Test
        void unknownAttributeSuggestsNearestNames() {
            DatQuerySyntaxException e = syntaxError("srq_suported && optimal_buffer_alignment <= 256");
            assertEquals(1, e.column());
            assertTrue(e.reason().startsWith("column 1: unknown attribute 'srq_suported'; did you mean srq_supported"),
                    e::reason);
            DatQuerySyntaxException partial = syntaxError("x || alignment < 8");
            assertEquals(1, partial.column(), "the first unknown name is reported");
            DatQuerySyntaxException second = syntaxError("srq_supported && alignment < 8");
            assertEquals(18, second.column());
            assertTrue(second.reason().contains("optimal_buffer_alignment"), second::reason);
        }

        @Test
        void unknownWithoutNeighboursSuggestsNothing() {
            DatQuerySyntaxException e = syntaxError("qqqqqqqqqqqqqqqq");
            assertEquals("column 1: unknown attribute 'qqqqqqqqqqqqqqqq'", e.reason());
        }

        @Test
        void tabsKeepTheCaretAligned() {
            DatQuerySyntaxException e = syntaxError("\tsrq_supported <");
            assertTrue(e.getMessage().endsWith("\n   srq_supported <\n                  ^"), e::getMessage);
        }
    }

    @Nested
    class JavaApi {

        @Test
        void buildsTheSameQueryAsTheText() {
            DatQuery built = attr("srq_supported").isTrue()
                    .and(attr("ep_recv_info_supported").hasAnyBits(0x10))
                    .and(attr("optimal_buffer_alignment").atMost(256));
            assertEquals("srq_supported && (ep_recv_info_supported & 0x10) != 0 && optimal_buffer_alignment <= 256",
                    built.toString());
            assertEquals(built, DatQuery.parse(built.toString()));
            assertEquals(DatQuery.parse("srq_supported && (ep_recv_info_supported & 0x10) != 0"
                    + " && optimal_buffer_alignment <= 256"), built);
            assertFalse(built.test(SAMPLE));
        }

        @Test
        void everyConditionRendersAndEvaluates() {
            Map<DatQuery, String> expected = Map.ofEntries(
                    Map.entry(attr("lmr_sync_req").isFalse(), "!lmr_sync_req"),
                    Map.entry(attr("max_iov_segments_per_dto").atLeast(2), "max_iov_segments_per_dto >= 2"),
                    Map.entry(attr("max_iov_segments_per_dto").greaterThan(1), "max_iov_segments_per_dto > 1"),
                    Map.entry(attr("max_iov_segments_per_dto").lessThan(3), "max_iov_segments_per_dto < 3"),
                    Map.entry(attr("max_iov_segments_per_dto").isEqualTo(2), "max_iov_segments_per_dto == 2"),
                    Map.entry(attr("max_message_size").isEqualTo(1L << 20), "max_message_size == 1048576"),
                    Map.entry(attr("max_iov_segments_per_dto").isNotEqualTo(3), "max_iov_segments_per_dto != 3"),
                    Map.entry(attr("srq_supported").isEqualTo(true), "srq_supported == true"),
                    Map.entry(attr("provider_name").isEqualTo("loopback"), "provider_name == \"loopback\""),
                    Map.entry(attr("iov_ownership_on_return").isEqualTo(DatIovOwnership.CONSUMER),
                            "iov_ownership_on_return == CONSUMER"),
                    Map.entry(attr("ep_recv_info_supported").hasAllBits(0x01),
                            "(ep_recv_info_supported & 0x1) == 0x1"),
                    Map.entry(attr("srq_supported").isTrue().negate().or(attr("max_rmrs").isTrue()),
                            "!srq_supported || max_rmrs"),
                    Map.entry(DatQuery.all(), "true"));
            expected.forEach((query, text) -> {
                assertEquals(text, query.toString());
                assertTrue(query.test(SAMPLE), text);
                assertEquals(query, DatQuery.parse(text));
            });
        }

        @Test
        void misuseIsRejectedWhenTheConditionIsBuilt() {
            DatQuerySyntaxException unknown = assertThrows(DatQuerySyntaxException.class,
                    () -> attr("max_mesage_size"));
            assertTrue(unknown.getMessage().contains("did you mean max_message_size"), unknown::getMessage);
            DatQuerySyntaxException kind = assertThrows(DatQuerySyntaxException.class,
                    () -> attr("srq_supported").atMost(256));
            assertEquals("<= needs integers, but srq_supported is a boolean", kind.reason());
            assertEquals(0, kind.column());
            assertTrue(kind.getMessage().endsWith("in query: srq_supported <= 256"), kind::getMessage);
            assertThrows(DatQuerySyntaxException.class,
                    () -> attr("iov_ownership_on_return").isEqualTo("NOT_A_CONSTANT"));
            assertThrows(IllegalArgumentException.class, () -> attr("max_rmrs").isEqualTo(1.5));
        }
    }

    @Nested
    class Explanations {

        @Test
        void comparisonNamesAttributeRequirementAndActual() {
            assertEquals(List.of("optimal_buffer_alignment <= 64 failed: actual 256"),
                    explain("optimal_buffer_alignment <= 64"));
        }

        @Test
        void falseBooleanAndZeroInteger() {
            assertEquals(List.of("lmr_sync_req is false"), explain("lmr_sync_req"));
            DatIaInfo noRmrs = Fixtures.ia("x", "p", p -> p, i -> i.maxRmrs(0));
            assertEquals(List.of("max_rmrs is 0"), DatQuery.parse("max_rmrs").explain(noRmrs));
            assertEquals(List.of("!srq_supported failed: actual true"), explain("!srq_supported"));
        }

        @Test
        void bitsAreShownInHex() {
            assertEquals(List.of("ep_recv_info_supported & 0x10 is 0: actual 0x1"),
                    explain("ep_recv_info_supported & 0x10"));
            assertEquals(List.of("(ep_recv_info_supported & 0x10) != 0 failed: actual 0x1"),
                    explain("(ep_recv_info_supported & 0x10) != 0"));
        }

        @Test
        void everyFailingConjunctIsReportedInOrder() {
            assertEquals(List.of(
                            "lmr_sync_req is false",
                            "optimal_buffer_alignment <= 64 failed: actual 256",
                            "max_message_size >= 1g failed: actual 1048576"),
                    explain("lmr_sync_req && srq_supported && optimal_buffer_alignment <= 64"
                            + " && max_message_size >= 1g && max_iov_segments_per_dto >= 1"));
        }

        @Test
        void failedDisjunctionReportsEveryAlternative() {
            assertEquals(List.of("all alternatives failed: (1) max_iov_segments_per_dto >= 4 failed: actual 2;"
                            + " (2) !srq_supported failed: actual true"),
                    explain("max_iov_segments_per_dto >= 4 || !srq_supported"));
            assertEquals(List.of("all alternatives failed: (1) lmr_sync_req is false;"
                            + " (2) max_rmrs >= 0 failed: actual -2 and optimal_buffer_alignment < 8 failed:"
                            + " actual 256;"
                            + " (3) ia_name == \"x\" failed: actual \"loopback0\""),
                    explain("lmr_sync_req || max_rmrs >= 0 && optimal_buffer_alignment < 8 || ia_name == 'x'"));
        }

        @Test
        void severalAttributesInOneComparisonAreNamed() {
            assertEquals(List.of("max_message_size >= max_rdma_size failed: actual max_message_size = 1048576,"
                    + " max_rdma_size = 1073741824"), explain("max_message_size >= max_rdma_size"));
        }

        @Test
        void enumAndLiteralOnlyComparisons() {
            assertEquals(List.of("iov_ownership_on_return == PROVIDER_MOD failed: actual CONSUMER"),
                    explain("iov_ownership_on_return == PROVIDER_MOD"));
            assertEquals(List.of("1 > 2 failed"), explain("1 > 2"));
        }

        @Test
        void aMatchHasNoReasons() {
            assertEquals(List.of(), explain("srq_supported && optimal_buffer_alignment <= 256"));
        }
    }

    @Nested
    class Limits {

        private DatQuerySyntaxException refused(String query) {
            // A StackOverflowError would fail this as "unexpected exception type thrown".
            return assertThrows(DatQuerySyntaxException.class, () -> DatQuery.parse(query));
        }

        @Test
        void twoThousandNestedParenthesesAreRefusedWithAColumn() {
            String query = "(".repeat(2000) + "srq_supported" + ")".repeat(2000);
            DatQuerySyntaxException e = refused(query);
            assertTrue(e.column() > 0 && e.column() <= 2000, () -> "column " + e.column());
            assertTrue(e.reason().contains("nest"), e::reason);
        }

        @Test
        void aFlatChainOfFourThousandOrsIsRefusedWithAColumn() {
            String query = String.join(" || ", Collections.nCopies(4000, "max_eps == 1"));
            DatQuerySyntaxException e = refused(query);
            assertTrue(e.column() > 0, () -> "column " + e.column());
        }

        @Test
        void aChainOfTenThousandNotsIsRefused() {
            assertTrue(refused("!".repeat(10_000) + "srq_supported").column() > 0);
        }

        @Test
        void chainsOfEveryBinaryOperatorAreRefused() {
            for (String op : List.of(" && ", " | ", " & ")) {
                String operand = op.equals(" && ") ? "srq_supported" : "max_eps";
                String query = String.join(op, Collections.nCopies(4000, operand))
                        + (op.equals(" && ") ? "" : " != 0");
                assertTrue(refused(query).column() > 0, op);
            }
        }

        @Test
        void aVeryLongQueryIsRefusedByItsLengthNotParsed() {
            DatQuerySyntaxException e = refused("ia_name == \"" + "a".repeat(1 << 20) + "\"");
            assertTrue(e.column() > 0);
            assertTrue(e.getMessage().length() < 2000, () -> "message of " + e.getMessage().length() + " chars");
        }

        @Test
        void aHugeNumericLiteralIsASyntaxErrorWithAShortMessage() {
            DatQuerySyntaxException e = refused("max_eps > " + "9".repeat(5000));
            assertEquals(11, e.column());
            assertTrue(e.getMessage().length() < 2000, () -> "message of " + e.getMessage().length() + " chars");
        }

        @Test
        void controlCharactersAreQuotedByCodePointNotEchoed() {
            DatQuerySyntaxException e = refused("srq_supported \u001b[31m && max_eps > 1");
            assertTrue(e.getMessage().contains("U+001B"), e::getMessage);
            HostileProviderTest.assertPrintable(e.getMessage().replace("\n", ""));
        }

        @Test
        void deepQueriesBuiltInJavaAreRefusedToo() {
            DatQuery q = attr("srq_supported").isTrue();
            DatQuery deep = q;
            DatQuerySyntaxException e = null;
            for (int i = 0; i < 10_000 && e == null; i++) {
                try {
                    deep = deep.or(q).negate();
                } catch (DatQuerySyntaxException refused) {
                    e = refused;
                }
            }
            assertTrue(e != null, "10,000 levels were accepted");
            assertEquals(deep.test(SAMPLE), deep.explain(SAMPLE).isEmpty(), "what was accepted evaluates");
            assertEquals(deep, DatQuery.parse(deep.toString()), "and prints as text that parses back");
        }

        @Test
        void aQuerySharingItselfCannotGrowExponentially() {
            DatQuery q = attr("srq_supported").isTrue();
            DatQuerySyntaxException e = null;
            for (int i = 0; i < 64 && e == null; i++) {
                try {
                    q = q.and(q);
                } catch (DatQuerySyntaxException refused) {
                    e = refused;
                }
            }
            assertTrue(e != null, "a query of 2^64 terms was accepted");
        }

        @Test
        void theDeepestAcceptedQueryParsesChecksEvaluatesAndPrints() {
            String accepted = null;
            for (int n = 8; n <= 4096; n *= 2) {
                String query = "(".repeat(n) + "max_eps > 1" + ")".repeat(n) + " && "
                        + String.join(" || ", Collections.nCopies(n, "max_eps == 1"));
                try {
                    DatQuery.parse(query);
                    accepted = query;
                } catch (DatQuerySyntaxException refused) {
                    break;
                }
            }
            assertTrue(accepted != null, "not even 8 levels are accepted");
            DatQuery q = DatQuery.parse(accepted);
            assertFalse(q.test(SAMPLE));
            assertFalse(q.explain(SAMPLE).isEmpty());
            assertEquals(q, DatQuery.parse(q.toString()));
        }
    }
}
