// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's options do what they say: exclude file, run-only patterns, JUnit XML reports, strict mode. */
class TckLauncherTest {

    private static final String LYING_SRQ = "a lying attribute: srq_supported = false while SRQs work";

    @Test
    void excludeFileWithCommentsLeavesRulesOut(@TempDir Path dir) throws IOException {
        Path exclude = dir.resolve("exclude.txt");
        Files.writeString(exclude, """
                # rules this run leaves out
                required_srq_resize_*   # every resize rule

                required_evd_dequeue_queueEmptyWhenNothingQueued
                """);
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .only("required_srq_resize_*", "required_evd_*").excludeFile(exclude), null);
        assertFalse(result.perCall().containsKey("dat_srq_resize"), "resize rules excluded: " + result.perCall());
        assertFalse(result.perCall().containsKey("dat_evd_dequeue"), "dequeue rule excluded: " + result.perCall());
        assertTrue(result.perCall().get("dat_evd_wait").passed() >= 3, "other EVD rules ran: " + result.perCall());
        assertTrue(result.success());
    }

    @Test
    void reportsDirectoryGetsJUnitXml(@TempDir Path dir) throws IOException {
        Path reports = dir.resolve("reports");
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .only("required_srq_create_createdUnattached").reportsDir(reports), null);
        assertEquals(1, result.passed());
        try (Stream<Path> files = Files.list(reports)) {
            List<Path> xml = files.filter(p -> p.toString().endsWith(".xml")).toList();
            assertEquals(1, xml.size(), "one XML report: " + xml);
            String text = Files.readString(xml.get(0));
            assertTrue(text.contains("required_srq_create_createdUnattached"), text);
            assertTrue(text.contains("failures=\"0\""), text);
        }
    }

    @Test
    void strictModeTurnsASkippedRequiredRuleIntoAFailure() {
        TckLauncher.Options options = TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .only("required_srq_resize_successGrowsTheQueue")
                .parameter(BrokenLoopbackVerification.FAULT, LYING_SRQ);
        TckLauncher.Result lenient = TckLauncher.run(options, null);
        assertEquals(1, lenient.skipped(), "skipped without strict mode");
        assertTrue(lenient.skips().values().iterator().next().contains("srq_supported = false"), lenient.skips()
                .toString());
        TckLauncher.Result strict = TckLauncher.run(options.strict(true), null);
        assertEquals(1, strict.failed(), "failed in strict mode");
        assertTrue(strict.failures().get(0).message().contains("strict mode"), strict.failures().toString());
        assertFalse(strict.success());
    }

    @Test
    void optionalRuleSkippedWithTheAttributeAsReasonEvenInStrictMode() {
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .only("optional_srq_create_epsOfAnotherPzShareTheSrq").strict(true)
                .parameter(BrokenLoopbackVerification.FAULT, LYING_SRQ), null);
        assertEquals(0, result.failed(), result.failures().toString());
        assertEquals(1, result.skipped());
    }
}
