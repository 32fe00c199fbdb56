// SPDX-License-Identifier: Apache-2.0
package repochecks;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every mutant of {@code dat.tck/src/test/resources/mutants.md} still applies to the sources: its text to find
 * occurs exactly once in its file, and the Results table gives it a verdict. Only the text is checked here, in a
 * second; {@code tools/mutants.py} replays the mutants against the kit (CI runs a sample of them).
 */
class MutantListTest {

    @Test
    void everyMutantStillAppliesToTheSources() throws IOException, InterruptedException {
        Path root = Repo.root();
        Repo.python(root, "mutants.py", "--check");
    }
}
