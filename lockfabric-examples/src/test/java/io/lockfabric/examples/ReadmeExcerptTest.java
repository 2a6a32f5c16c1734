package io.lockfabric.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's example ("Using LockFabric from Java") is an excerpt of {@link OrdersExample}, line
 * for line, so it always compiles and runs ({@link OrdersExampleTest}).
 */
class ReadmeExcerptTest {
    private static final String SECTION = "## Using LockFabric from Java";
    private static final String BEGIN = "// --- README: Using LockFabric from Java";
    private static final String END = "// --- end of the README's excerpt";

    /** The lines of the first {@code ```java} block after the section's heading, indentation stripped. */
    private static List<String> readmeBlock() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int section = readme.indexOf(SECTION);
        assertTrue(section >= 0, "the README has no section '" + SECTION + "'");
        int start = readme.indexOf("```java\n", section);
        assertTrue(start >= 0, "the section '" + SECTION + "' has no java block");
        start += "```java\n".length();
        int end = readme.indexOf("```", start);
        return readme.substring(start, end).lines().map(String::strip).toList();
    }

    /** The example's lines between its markers, indentation stripped. */
    private static List<String> exampleExcerpt() throws IOException {
        String source = Files.readString(Path.of("src", "main", "java", "io", "lockfabric", "examples", "OrdersExample.java"));
        int start = source.indexOf(BEGIN);
        int end = source.indexOf(END);
        assertTrue(start >= 0 && end > start, "OrdersExample lost its README markers");
        start = source.indexOf('\n', start) + 1;
        return source.substring(start, end).lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void theReadmeQuotesTheExampleLineForLine() throws IOException {
        List<String> readme = readmeBlock();
        List<String> example = exampleExcerpt();
        // the README closes the blocks the excerpt leaves open (the try-with-resources of the LockFabric)
        assertTrue(readme.size() > example.size(), "the README's block is shorter than the excerpt:\n" + readme);
        assertEquals(example, readme.subList(0, example.size()),
                "the README's block must begin with OrdersExample's excerpt, line for line");
        for (String closing : readme.subList(example.size(), readme.size())) {
            assertTrue(closing.isEmpty() || closing.equals("}") || closing.startsWith("//"),
                    "after the excerpt the README only closes blocks or comments, not: " + closing);
        }
    }
}
