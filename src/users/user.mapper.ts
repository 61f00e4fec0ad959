import { ApiKeyEntity } from './api-key.entity';
import { UserEntity } from './user.entity';
import { ApiKeyDto, UserDto } from './dto/user.dto';

export function toUserDto(user: UserEntity): UserDto {
  return { id: user.id, user_name: user.userName, role: user.role };
}

export function toApiKeyDto(key: ApiKeyEntity): ApiKeyDto {
  return {
    id: key.id,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
  };
}
