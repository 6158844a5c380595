import { describe, expect, it } from 'vitest';
import { createRouter } from './router.ts';

const handler = async () => {};

describe('createRouter', () => {
  it('when one method of one path is declared twice, then the second declaration throws', () => {
    const router = createRouter().get('/plants', handler);
    expect(() => router.get('/plants', handler)).toThrow('HEAD /plants is declared twice');
    expect(() => router.post('/plants/:id', handler).post('/plants/:id', handler)).toThrow(
      'POST /plants/:id is declared twice',
    );
  });

  it('when a parameter is not the last segment, or a path does not start with /, then declaring it throws', () => {
    expect(() => createRouter().get('/plants/:id/tags', handler)).toThrow('only the last segment');
    expect(() => createRouter().get('plants', handler)).toThrow('starts with /');
  });

  it('when a route has no middleware, then declaring it throws', () => {
    expect(() => createRouter().delete('/plants/:id')).toThrow('no middleware for DELETE /plants/:id');
  });
});
