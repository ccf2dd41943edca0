// The pages show every error code of the catalog in words: a code added to src/errors.ts without
// words in web/src/shared/error-words.ts fails here, so forms never fall back to a bare message.
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/errors.ts';
import { ApiError } from '../web/src/shared/api.ts';
import { describeError, ERROR_NAMES_IN_WORDS } from '../web/src/shared/error-words.ts';

describe('error codes in words', () => {
  it('covers every code of the catalog', () => {
    const missing = Object.keys(ERRORS).filter((name) => !ERROR_NAMES_IN_WORDS.includes(name));
    expect(missing).toEqual([]);
  });

  it('describes an API error by its words, its code and the service message with the field', () => {
    const error = new ApiError(409, {
      code: 2102,
      name: 'IMMUTABLE_PROMOTION_FIELD',
      message: "'timezone' cannot change",
      field: 'body.timezone',
    });
    expect(describeError(error)).toEqual({
      summary: 'This field is locked: the promotion has been active.',
      reference: 'Error 2102 IMMUTABLE_PROMOTION_FIELD',
      detail: "'timezone' cannot change (body.timezone)",
    });
  });

  it('falls back to the message for a code it does not know, and names a page error as such', () => {
    expect(
      describeError(new ApiError(418, { code: 9999, name: 'SOMETHING_NEW', message: 'new thing' })).summary,
    ).toBe('new thing');
    expect(describeError(new Error('boom'))).toMatchObject({ reference: 'Page error', detail: 'boom' });
  });
});
