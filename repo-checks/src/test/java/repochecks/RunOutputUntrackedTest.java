// SPDX-License-Identifier: Apache-2.0
package repochecks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Git tracks nothing the project's own commands write, and ignores the places they write to. */
class RunOutputUntrackedTest {

    /**
     * The repository tracks nothing that running its own commands writes: {@code ./dat tck} from the root writes JUnit
     * XML to {@code dat-tck-reports/}, the build to {@code target/}; a tracked copy is rewritten by every run. Git
     * must also ignore those places, so the next run's output is not committed again. Skipped outside a git checkout
     * (a source archive), except under {@code CI=true}, which always runs on a clone.
     */
    @Test
    void runOutputIsNeitherTrackedNorUnignored() throws IOException, InterruptedException {
        Path root = Repo.root();
        String tracked = Repo.git(root, "ls-files");
        List<String> output = tracked.lines()
                .filter(f -> f.startsWith("dat-tck-reports/") || f.contains("/target/") || f.startsWith("target/")
                        || f.matches("(.*/)?TEST-[^/]*\\.xml"))
                .toList();
        assertEquals(List.of(), output, "run output tracked by git: git rm --cached it");
        for (String written : List.of("dat-tck-reports/TEST-junit-jupiter.xml", "dat-tck-reports/x/TEST-a.xml",
                "dat.cli/target/x", "target/jcstress-results/index.html", "jcstress-results-1.bin.gz")) {
            Repo.Run run = Repo.run(root, 60, "git check-ignore",
                    List.of("git", "check-ignore", "-q", "--no-index", written));
            assertEquals(0, run.exit(), written + " is not ignored by .gitignore");
        }
    }
}
