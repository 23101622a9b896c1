// Steps shared by the widget specs, as a person takes them.
import { expect, type Locator } from "@playwright/test";

/** Type a question and press Enter once the widget takes one: while a run is in progress (its answer
 *  may already show: the receipt is stored after the text streamed) Send is Stop, and the widget
 *  keeps the question in the box instead of asking it. */
export async function askWidget(widget: Locator, prompt: string, timeout = 60_000): Promise<void> {
  await expect(widget.getByRole("button", { name: "Send" })).toBeEnabled({ timeout });
  const input = widget.getByRole("textbox", { name: "Your question" });
  await input.fill(prompt);
  await input.press("Enter");
}
