// SPDX-License-Identifier: Apache-2.0
package repochecks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed files that a generator under {@code tools/} writes are exactly what it writes from today's sources:
 * {@code docs/dat-calls.md}, the attribute records of {@code dat.api} and the libfabric struct classes of
 * {@code dat.provider.ofi}.
 */
class GeneratorDriftTest {

    @Test
    void theDatCallMapIsWhatTheGeneratorWrites(@TempDir Path out) throws IOException, InterruptedException {
        Path root = Repo.root();
        Path written = out.resolve("dat-calls.md");
        Repo.python(root, "gen-dat-calls.py", written.toString());
        assertEquals(Files.readString(written), Files.readString(root.resolve("docs/dat-calls.md")),
                "docs/dat-calls.md differs from the sources: run python3 tools/gen-dat-calls.py");
    }

    @Test
    void theAttributeRecordsAreWhatTheGeneratorWrites(@TempDir Path out) throws IOException, InterruptedException {
        Path root = Repo.root();
        Repo.python(root, "gen-attr-records.py", out.toString());
        for (String record : List.of("DatProviderAttr", "DatIaAttr", "DatEpAttr")) {
            Path committed = root.resolve("dat.api/src/main/java/dat/api/" + record + ".java");
            assertEquals(Files.readString(out.resolve(record + ".java")), Files.readString(committed),
                    record + ".java differs from what tools/gen-attr-records.py writes: edit the table there and run"
                            + " it, never the record");
        }
    }

    @Test
    void theLibfabricStructClassesAreWhatTheGeneratorWrites(@TempDir Path out)
            throws IOException, InterruptedException {
        Path root = Repo.root();
        Repo.python(root, "gen-ofi-ffm.py", out.toString());
        Path ffm = root.resolve("dat.provider.ofi/src/main/java/dat/provider/ofi/internal/ffm");
        List<Path> written;
        try (var files = Files.list(out)) {
            written = files.sorted().toList();
        }
        assertEquals(39, written.size(), "struct classes written: " + written);
        for (Path w : written) {
            assertEquals(Files.readString(w), Files.readString(ffm.resolve(w.getFileName().toString())),
                    w.getFileName() + " differs from what tools/gen-ofi-ffm.py writes: edit the table there, run it");
        }
    }
}
