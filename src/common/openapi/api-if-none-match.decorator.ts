import { ApiHeader } from '@nestjs/swagger';

/** A conditional read: the route answers 304 when the ETag sent still matches. */
export const ApiIfNoneMatch = (): MethodDecorator & ClassDecorator =>
  ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'The ETag of an earlier answer (quoted): 304 without a body while it still matches',
  });
