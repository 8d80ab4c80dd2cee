// The Anthropic client mini-agent uses: the SDK's base client with only the Messages resource.
// The SDK's `Anthropic` class attaches every resource of the API (beta, files, models, skills,
// organizations...): ~1.4 MB once bundled, where the base client and Messages are ~0.35 MB, and
// the first request pays for compiling all of it (issue 14). This module is imported dynamically
// (on the first request) and imports the SDK statically, by name, so that the bundler can leave
// the rest out: a dynamic import of the SDK itself would keep every export it has.
// `withOptions` clones through `this.constructor`, so a clone is a MessagesClient too.
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages';

export class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}
